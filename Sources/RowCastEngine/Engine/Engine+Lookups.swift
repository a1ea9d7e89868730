import RowCastJSON
import RowCastWire

extension Engine {
    /// The `events` reply: the feed's action events after event sequence `after` (at most
    /// `limit`), with `last` (the feed's last event sequence), `first` (the oldest kept) and
    /// `covered` (false when events after `after` were already dropped by retention).
    func eventsReply(_ request: Request, after: UInt64, limit: Int) -> [UInt8] {
        let name = request.feed!
        let page = actionEvents.page(feed: name, after: after, limit: limit)
        // Event bodies are small and a page holds at most ActionEventLog.maximumPage of them.
        let events = page.events.map { (try? JSONParser.parse($0.body)) ?? .null }
        var members = JSONObject()
        members.append(key: "feed", value: .string(name))
        members.append(key: "after", value: .number(Double(after)))
        members.append(key: "last", value: .number(Double(page.last)))
        members.append(key: "first", value: page.first.map { .number(Double($0)) } ?? .null)
        members.append(key: "covered", value: .bool(page.covered))
        members.append(key: "more", value: .bool((page.events.last?.seq ?? after) < page.last))
        members.append(key: "events", value: .array(events))
        return ReplyBuilder.success(op: request.op, members: members, req: request.req, client: request.client)
    }

    /// The `locate` reply: the section index and id and the row index of item `id`'s row, and
    /// the `seq` and `epoch` of the feed state they hold for.
    func locateReply(_ request: Request, id: String) throws(RowCastError) -> [UInt8] {
        let name = request.feed!
        guard let feed = feeds[name], let item = feed.item(id) else {
            throw RowCastError(
                .notFound, "locate: feed \"\(name)\" has no item \"\(id)\"", field: "id", feed: name, id: id)
        }
        guard let place = feed.locate(id) else {
            throw RowCastError(
                .notFound,
                "locate: item \"\(id)\" of feed \"\(name)\" has no row (no plugin renders type \(item.input.type), or it is quarantined)",
                field: "id", feed: name, id: id)
        }
        var members = JSONObject()
        members.append(key: "feed", value: .string(name))
        members.append(key: "id", value: .string(id))
        members.append(key: "section", value: .number(Double(place.section)))
        members.append(key: "row", value: .number(Double(place.row)))
        members.append(key: "sectionId", value: .string(place.sectionID))
        members.append(key: "seq", value: .number(Double(feed.seq)))
        members.append(key: "epoch", value: .string(feed.epoch))
        return ReplyBuilder.success(op: request.op, members: members, req: request.req, client: request.client)
    }
}
