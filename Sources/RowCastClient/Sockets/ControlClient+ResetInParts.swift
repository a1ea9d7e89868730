import RowCastJSON

extension ControlClient {
    /// The size a part of ``resetInParts(feed:items:sections:partBytes:progress:)`` aims at: well under
    /// the daemon's default message limit (1 MiB).
    public static let resetPartBytes = 256 * 1024

    /// Replaces the whole contents of `feed` with a reset sent in parts (docs/PROTOCOL.md,
    /// "Resets in parts"), for contents of any size: `reset_begin`, one `reset_append` per
    /// part of about `partBytes`, then `reset_commit`, which applies everything at once and is
    /// acked once. A part that gets no reply is sent again (the daemon applies a part number
    /// once). `progress` is called after each part with the items sent so far.
    /// - Returns: the commit's ack.
    public func resetInParts(
        feed: String, items: [JSONValue], sections: [JSONValue] = [], partBytes: Int = ControlClient.resetPartBytes,
        progress: (Int) -> Void = { _ in }
    ) throws(RowCastClientError) -> RowCastAck {
        let begun = try request(["op": "reset_begin", "feed": .string(feed)])
        guard let token = begun["reset"]?.stringValue else {
            throw .invalidReply(endpoint: endpoint, "to reset_begin has no \"reset\" name")
        }
        var part = 0
        var pending: [JSONValue] = []
        var pendingBytes = 0
        var sent = 0
        func append(sections: [JSONValue]) throws(RowCastClientError) {
            let body: JSONValue = [
                "op": "reset_append", "feed": .string(feed), "reset": .string(token), "part": .number(Double(part)),
                "items": .array(pending), "sections": .array(sections),
            ]
            var attempts = 0
            while true {
                attempts += 1
                do {
                    _ = try request(body)
                    break
                } catch let error where error.code == "timeout" && attempts < 3 {
                    continue  // the same part again: applied once
                }
            }
            sent += pending.count
            progress(sent)
            part += 1
            pending.removeAll(keepingCapacity: true)
            pendingBytes = 0
        }
        try append(sections: sections)
        for item in items {
            let size = item.serialized().count
            if !pending.isEmpty, pendingBytes + size > partBytes { try append(sections: []) }
            pending.append(item)
            pendingBytes += size + 1
        }
        if !pending.isEmpty { try append(sections: []) }
        return RowCastAck(reply: try request(["op": "reset_commit", "feed": .string(feed), "reset": .string(token)]))
    }
}
