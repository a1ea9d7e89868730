import RowCastJSON

/// The one reply a client gets to a request every engine loop answered (`status`, `reload`,
/// `quarantine` without a feed): the loops' replies, in loop order, made into the reply one
/// loop holding every feed would have sent (docs/OPERATIONS.md, "Engine threads"), with what
/// only several loops can add (`refusedInSomeLoops` of `reload`).
enum FanOutReplies {
    /// The ops whose request goes to every loop.
    static func goesToEveryLoop(op: String?, namesFeed: Bool) -> Bool {
        switch op {
        case "status", "reload": true
        case "quarantine": !namesFeed
        default: false
        }
    }

    /// The merged reply to `op` from `replies` (one per loop, in loop order); `endpoints` are
    /// the daemon's public endpoints, which `status` shows in place of the loops' own, and
    /// `frontDropped` the replies the front could not hand over, which `status` counts with the
    /// loops' own. With CURVE, `curveCounts` are the counts of `status`'s `curve` member that the
    /// front and the publish proxy keep (the loops admit no connection and see no subscriber);
    /// the loops' `refusedClientFrames` are added up. A reply that failed, or one that does not
    /// parse, is sent as it is (the first of them).
    static func merge(
        op: String, _ replies: [[UInt8]], endpoints: JSONValue, frontDropped: Int = 0, curveCounts: JSONObject? = nil
    ) -> [UInt8] {
        var objects: [JSONObject] = []
        for reply in replies {
            guard let object = (try? JSONParser.parse(reply))?.objectValue, object["ok"] == .bool(true) else {
                return reply
            }
            objects.append(object)
        }
        guard var merged = objects.first, let first = replies.first else { return [] }
        merged["req"] = nil
        merged["client"] = nil
        switch op {
        case "status":
            mergeStatus(&merged, objects, endpoints: endpoints)
            if frontDropped > 0, var counters = merged["counters"]?.objectValue {
                counters["dropped"] = .number(
                    JSONNumber((counters["dropped"]?.numberValue ?? 0) + Double(frontDropped)))
                merged["counters"] = .object(counters)
            }
            if let curveCounts, var curve = merged["curve"]?.objectValue {
                for (key, value) in curveCounts.entries { curve[key] = value }
                let frames = objects.map { $0["curve"]?["refusedClientFrames"]?.numberValue ?? 0 }.reduce(0, +)
                curve["refusedClientFrames"] = .number(JSONNumber(frames))
                merged["curve"] = .object(curve)
            }
        case "quarantine": mergeSums(&merged, objects, keys: ["items", "retried"])
        case "reload": mergeReload(&merged, objects)
        default: break
        }
        var bytes = JSONValue.object(merged).serialized()
        guard let tail = correlationTail(of: first) else { return bytes }
        bytes.removeLast()
        return bytes + tail
    }

    /// The end of a reply from its `,"req":` (or `,"client":` without one) on, byte for byte:
    /// `req` comes back exactly as the request wrote it (docs/PROTOCOL.md), so it is copied,
    /// never parsed and written again. rowcastd appends these two last, and the bytes `,"req":`
    /// can appear nowhere else after them (a quote inside a string is escaped).
    static func correlationTail(of reply: [UInt8]) -> ArraySlice<UInt8>? {
        for key in [#","req":"#, #","client":"#] {
            let pattern = Array(key.utf8)
            guard reply.count > pattern.count else { continue }
            var start = reply.count - pattern.count
            while start >= 0 {
                if reply[start..<(start + pattern.count)].elementsEqual(pattern) { return reply[start...] }
                start -= 1
            }
        }
        return nil
    }

    /// `status`: counts added up, the feed lists merged in name order (a page ends where the
    /// first loop's page ended), each loop's plugin hosts listed, a cluster node's `cluster`
    /// once with every loop's forwarded requests waiting.
    private static func mergeStatus(_ merged: inout JSONObject, _ objects: [JSONObject], endpoints: JSONValue) {
        merged["endpoints"] = endpoints
        merged["engineThreads"] = .number(Double(objects.count))
        mergeSums(
            &merged, objects, keys: ["storedBytes", "feedCount", "quarantined", "staleRows", "pluginHosts", "counters"])
        // A cluster node's `cluster` is the node's (one coordinator; the first loop's view of
        // it), but each loop forwards requests of its own partitions: their waits add up.
        if var cluster = merged["cluster"]?.objectValue {
            let forwarding = objects.map { $0["cluster"]?["forwarding"]?.numberValue ?? 0 }.reduce(0, +)
            cluster["forwarding"] = .number(JSONNumber(forwarding))
            merged["cluster"] = .object(cluster)
        }
        var feeds = objects.flatMap { $0["feeds"]?.arrayValue ?? [] }
        feeds.sort { ($0["feed"]?.stringValue ?? "") < ($1["feed"]?.stringValue ?? "") }
        // A loop whose page was full says where it stopped: the merged page stops at the
        // earliest such place, so the next request (after it) misses none of that loop's feeds.
        let stops = objects.compactMap { $0["more"] == .bool(true) ? $0["next"]?.stringValue : nil }
        merged["more"] = nil
        merged["next"] = nil
        var stop = stops.min()
        if let stop { feeds.removeAll { ($0["feed"]?.stringValue ?? "") > stop } }
        // The merged page keeps the one-loop bound: half of max_message_bytes, as
        // `Engine.statusMembersNow` counts it.
        if let limit = merged["limits"]?["max_message_bytes"]?.numberValue {
            var budget = Int(limit) / 2
            for (index, feed) in feeds.enumerated() {
                let name = feed["feed"]?.stringValue ?? ""
                budget -= 120 + 2 * name.utf8.count + (feed["epoch"]?.stringValue?.utf8.count ?? 0)
                guard budget < 0 else { continue }
                stop = feeds[..<index].last?["feed"]?.stringValue ?? stop
                feeds.removeSubrange(index...)
                break
            }
        }
        if let stop {
            merged["more"] = true
            merged["next"] = .string(stop)
        }
        merged["feeds"] = .array(feeds)
    }

    /// `reload`: every loop applied the one decision of its group (`SharedReload`), so the
    /// configuration, the settings applied, the keys and the cells are the first loop's; the
    /// feeds rendered again are every loop's, in name order; and `refusedInSomeLoops` lists,
    /// per loop, each plugin file that some loops refused and others loaded (a plugin host that
    /// failed to start), the one way the loops can end a reload apart.
    private static func mergeReload(_ merged: inout JSONObject, _ objects: [JSONObject]) {
        if merged["rerendered"] != nil {
            var rerendered = objects.flatMap { $0["rerendered"]?.arrayValue ?? [] }
            rerendered.sort { ($0["feed"]?.stringValue ?? "") < ($1["feed"]?.stringValue ?? "") }
            merged["rerendered"] = .array(rerendered)
        }
        merged["refusedInSomeLoops"] = .array(
            refusedInSomeLoops(objects.map { $0["refusals"]?.arrayValue ?? [] }))
    }

    /// The refusals (`file`, `code`, `reason`) of the loops, one list per loop in loop order,
    /// whose file some loops refused and at least one did not, each with its `loop` first, in
    /// loop order; empty when every loop refused the same files.
    static func refusedInSomeLoops(_ refusals: [[JSONValue]]) -> [JSONValue] {
        let refusedFiles = refusals.map { Set($0.compactMap { $0["file"]?.stringValue }) }
        var partial: [JSONValue] = []
        for (loop, loopRefusals) in refusals.enumerated() {
            for refusal in loopRefusals {
                guard let file = refusal["file"]?.stringValue, !refusedFiles.allSatisfy({ $0.contains(file) })
                else { continue }
                var entry: JSONObject = ["loop": .number(Double(loop))]
                for (key, value) in refusal.objectValue?.entries ?? [] { entry.append(key: key, value: value) }
                partial.append(.object(entry))
            }
        }
        return partial
    }

    /// Adds up `keys` over `objects`: numbers are summed, arrays joined, objects summed member
    /// by member.
    private static func mergeSums(_ merged: inout JSONObject, _ objects: [JSONObject], keys: [String]) {
        for key in keys {
            guard merged[key] != nil else { continue }
            merged[key] = objects.dropFirst().reduce(merged[key]!) { sum($0, $1[key]) }
        }
    }

    private static func sum(_ left: JSONValue, _ right: JSONValue?) -> JSONValue {
        guard let right else { return left }
        switch (left, right) {
        case (.number(let a), .number(let b)): return .number(JSONNumber(a.double + b.double))
        case (.array(let a), .array(let b)): return .array(a + b)
        case (.object(let a), .object(let b)):
            var object = a
            for key in a.keys { object[key] = sum(a[key]!, b[key]) }
            return .object(object)
        default: return left
        }
    }
}
