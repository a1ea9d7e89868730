import RowCastJSON

/// Builders for the request objects of PROTOCOL.md ("Operations").
public enum RowCastRequest {
    /// `{"op":"upsert","feed","item"}`: insert or replace one item.
    public static func upsert(feed: String, item: JSONValue) -> JSONValue {
        ["op": "upsert", "feed": .string(feed), "item": item]
    }

    /// `{"op":"delete","feed","id"}`: delete one item.
    public static func delete(feed: String, id: String) -> JSONValue {
        ["op": "delete", "feed": .string(feed), "id": .string(id)]
    }

    /// `{"op":"section","feed","section"}`: declare or replace a section.
    public static func section(feed: String, section: JSONValue) -> JSONValue {
        ["op": "section", "feed": .string(feed), "section": section]
    }

    /// `{"op":"drop","feed"}`: remove a feed with its history, freeing its place.
    public static func drop(feed: String) -> JSONValue {
        ["op": "drop", "feed": .string(feed)]
    }

    /// `{"op":"delete_section","feed","id"}`: delete a section and its items.
    public static func deleteSection(feed: String, id: String) -> JSONValue {
        ["op": "delete_section", "feed": .string(feed), "id": .string(id)]
    }

    /// `{"op":"reset","feed","items","sections"}`: replace the whole feed.
    public static func reset(feed: String, items: [JSONValue], sections: [JSONValue]? = nil) -> JSONValue {
        var object: JSONObject = ["op": "reset", "feed": .string(feed), "items": .array(items)]
        if let sections { object["sections"] = .array(sections) }
        return .object(object)
    }

    /// `{"op":"snapshot","feed","chunked":true}`: answered in parts (``SnapshotAssembler``).
    public static func snapshot(feed: String) -> JSONValue {
        ["op": "snapshot", "feed": .string(feed), "chunked": true]
    }

    /// `{"op":"snapshot","feed","chunked":true,"limit",…}`: the window of at most `limit` rows
    /// from row `offset`, or centred on the row of item `around`.
    public static func snapshot(feed: String, offset: Int?, around: String?, limit: Int) -> JSONValue {
        var request: JSONObject = ["op": "snapshot", "feed": .string(feed), "chunked": true]
        if let offset { request["offset"] = .number(Double(offset)) }
        if let around { request["around"] = .string(around) }
        request["limit"] = .number(Double(limit))
        return .object(request)
    }

    /// `{"op":"since","feed","epoch","seq"}`: the deltas after `seq` from the feed's history.
    public static func since(feed: String, epoch: String, seq: Int) -> JSONValue {
        ["op": "since", "feed": .string(feed), "epoch": .string(epoch), "seq": .number(Double(seq))]
    }

    /// `{"op":"status"}`, or `{"op":"status","after"}` for the feeds after `after`.
    public static func status(after: String? = nil) -> JSONValue {
        guard let after else { return ["op": "status"] }
        return ["op": "status", "after": .string(after)]
    }

    /// `{"op":"plugins"}`.
    public static func plugins() -> JSONValue { ["op": "plugins"] }

    /// `{"op":"quarantine"}`: the quarantined items; with `retry`, render them again first (all,
    /// those of `feed`, or item `id` of `feed`).
    public static func quarantine(retry: Bool = false, feed: String? = nil, id: String? = nil) -> JSONValue {
        var object: JSONObject = ["op": "quarantine"]
        if retry { object.append(key: "retry", value: true) }
        if let feed { object.append(key: "feed", value: .string(feed)) }
        if let id { object.append(key: "id", value: .string(id)) }
        return .object(object)
    }

    /// `{"op":"reload"}`: re-read the daemon's configuration and rescan its plugin directories.
    public static func reload() -> JSONValue { ["op": "reload"] }

    /// `{"op":"select","feed","id","action","value"?,"user"?}`: run a row's action handler, with
    /// the value an edit or a toggle carries, as `user` (a client allowed `act_as` only).
    public static func select(
        feed: String, id: String, action: String = "select", value: JSONValue? = nil, user: String? = nil
    ) -> JSONValue {
        var object: JSONObject = ["op": "select", "feed": .string(feed), "id": .string(id), "action": .string(action)]
        if let value { object.append(key: "value", value: value) }
        if let user { object.append(key: "user", value: .string(user)) }
        return .object(object)
    }

    /// `{"op":"events","feed","after","limit"?}`: the feed's action events after event
    /// sequence `after`.
    public static func events(feed: String, after: Int = 0, limit: Int? = nil) -> JSONValue {
        var object: JSONObject = ["op": "events", "feed": .string(feed), "after": .number(Double(after))]
        if let limit { object.append(key: "limit", value: .number(Double(limit))) }
        return .object(object)
    }

    /// `{"op":"locate","feed","id"}`: where the row of item `id` is.
    public static func locate(feed: String, id: String) -> JSONValue {
        ["op": "locate", "feed": .string(feed), "id": .string(id)]
    }
}
