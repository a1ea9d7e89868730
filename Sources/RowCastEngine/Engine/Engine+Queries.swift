import RowCastJSON
import RowCastWire

extension Engine {
    /// The reply body for one request of the batch, written after the batch's deltas.
    func reply(for outcome: Pending, publications: inout [Publication]) -> [UInt8] {
        switch outcome {
        case .failed(let error, let op, let req, let client):
            return ReplyBuilder.failure(error, op: op, req: req, client: client)
        case .applied(let request, let name, let extra):
            var members = JSONObject()
            members.append(key: "feed", value: .string(name))
            // A drop says where the feed is itself: gone, even when the batch created it again.
            if extra["seq"] == nil {
                members.append(key: "seq", value: .number(Double(feeds[name]?.seq ?? 0)))
                members.append(key: "epoch", value: feeds[name].map { .string($0.epoch) } ?? .null)
            }
            for entry in extra.entries { members.append(key: entry.key, value: entry.value) }
            return ReplyBuilder.success(op: request.op, members: members, req: request.req, client: request.client)
        case .recalled(let key, let answer):
            return recalledReply(key, answer: answer)
        case .answered(let request, let members):
            return ReplyBuilder.success(op: request.op, members: members, req: request.req, client: request.client)
        case .query(let request):
            do {
                return try answer(request, publications: &publications)
            } catch {
                counters.countRejection(error.code)
                return ReplyBuilder.failure(error, op: request.op, req: request.req, client: request.client)
            }
        }
    }

    private func answer(_ request: Request, publications: inout [Publication]) throws(RowCastError) -> [UInt8] {
        switch request.operation {
        case .snapshot:
            preconditionFailure("snapshots are answered through SnapshotJob, in parts")
        case .since(let epoch, let seq):
            return sinceReply(request, epoch: epoch, seq: seq)
        case .status(let after):
            return ReplyBuilder.success(
                op: request.op, members: statusMembersNow(after: after), req: request.req, client: request.client)
        case .plugins:
            var members = renderer.pluginsDescription()
            members.append(key: "isolation", value: .string(renderer.rendersInBatches ? "process" : "in_process"))
            members.append(key: "hosts", value: .array(renderer.hostsDescription()))
            return ReplyBuilder.success(op: request.op, members: members, req: request.req, client: request.client)
        case .quarantine(_, let id):
            let items: JSONValue = .array(
                quarantine.json.arrayValue!.filter { entry in
                    (request.feed == nil || entry.objectValue?["feed"]?.stringValue == request.feed)
                        && (id == nil || entry.objectValue?["id"]?.stringValue == id)
                })
            return ReplyBuilder.success(
                op: request.op, members: ["items": items], req: request.req, client: request.client)
        case .select:
            preconditionFailure("select runs in the batch (Engine.performSelect)")
        case .events(let after, let limit):
            return eventsReply(request, after: after, limit: limit)
        case .locate(let id):
            return try locateReply(request, id: id)
        case .upsert, .delete, .section, .deleteSection, .reset, .resetCommit, .resetBegin, .resetAppend, .drop:
            preconditionFailure("mutations are answered as applied")
        case .reload:
            preconditionFailure("reload is deferred to the daemon (EngineOutput.deferred)")
        }
    }

    /// The status members. The feed list starts after the feed named `after` and stops when
    /// it would take half of `limits.max_message_bytes`; then `more` is true and `next` is
    /// the `after` of the request that continues it.
    private func statusMembersNow(after: String?) -> JSONObject {
        var members = JSONObject()
        for entry in statusMembers.entries { members.append(key: entry.key, value: entry.value) }
        members.append(key: "protocol", value: 1)
        members.append(key: "uptime", value: .number((uptimeSeconds * 1000).rounded() / 1000))
        members.append(key: "storedBytes", value: .number(Double(storedBytes)))
        members.append(key: "feedCount", value: .number(Double(feeds.count)))
        var names = feeds.keys.sorted()
        if let after { names.removeAll { $0 <= after } }
        var feedList: [JSONValue] = []
        var budget = decoder.maximumMessageBytes / 2
        for name in names {
            let feed = feeds[name]!
            budget -= 120 + 2 * name.utf8.count + feed.epoch.utf8.count
            if budget < 0 {
                members.append(key: "more", value: true)
                members.append(key: "next", value: feedList.last?["feed"] ?? .null)
                break
            }
            feedList.append([
                "feed": .string(name), "seq": .number(Double(feed.seq)), "epoch": .string(feed.epoch),
                "sections": .number(Double(feed.sectionCount)), "rows": .number(Double(feed.rowCount)),
                "items": .number(Double(feed.itemCount)), "pending": .number(Double(feed.pendingCount)),
            ])
        }
        members.append(key: "feeds", value: .array(feedList))
        members.append(key: "plugins", value: .number(Double(renderer.pluginCount)))
        members.append(key: "quarantined", value: .number(Double(quarantine.count)))
        members.append(key: "staleRows", value: .number(Double(staleRenders.count)))
        members.append(key: "pluginHosts", value: .array(renderer.hostsDescription()))
        members.append(
            key: "counters",
            value: [
                "received": .number(Double(counters.received)), "applied": .number(Double(counters.applied)),
                "rejected": .number(Double(counters.rejected)), "published": .number(Double(counters.published)),
                "dropped": .number(Double(counters.dropped)),
            ])
        return members
    }
}
