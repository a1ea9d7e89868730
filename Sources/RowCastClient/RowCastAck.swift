import RowCastJSON

/// A successful reply to a feed operation: where the feed stands once the request applied.
public struct RowCastAck: Sendable, Equatable, CustomStringConvertible {
    /// The operation acknowledged (`upsert`, `delete`, ...).
    public let op: String
    /// The feed changed.
    public let feed: String?
    /// The feed's sequence number once the request is applied.
    public let seq: Int?
    /// The feed's epoch.
    public let epoch: String?
    /// A warning that came with success (e.g. `unknown_type`: the item waits for a plugin).
    public let warning: RowCastClientError?
    /// For `reset`: the items the plugin rejected (they were left out).
    public let rejected: [RowCastClientError]
    /// For `reset`: the ids listed more than once (`duplicate_id`; the last copy was kept).
    public let duplicates: [RowCastClientError]
    /// The whole reply.
    public let reply: JSONValue

    /// Reads a success reply.
    public init(reply: JSONValue) {
        self.reply = reply
        op = reply["op"]?.stringValue ?? "?"
        feed = reply["feed"]?.stringValue
        seq = reply["seq"]?.integerValue
        epoch = reply["epoch"]?.stringValue
        warning = reply["warning"].flatMap { $0.isNull ? nil : RowCastClientError(errorObject: $0) }
        rejected = reply["rejected"]?.arrayValue?.map { RowCastClientError(errorObject: $0) } ?? []
        duplicates = reply["duplicates"]?.arrayValue?.map { RowCastClientError(errorObject: $0) } ?? []
    }

    /// "ok cars seq=12", with the warning, rejections and duplicate ids appended when there
    /// are any ("ok cars seq=12 rejected=1 duplicates=2").
    public var description: String {
        var text = "ok"
        if let feed { text += " \(feed)" }
        if let seq { text += " seq=\(seq)" }
        if let warning { text += " warning=\(warning.code): \(warning.message)" }
        if !rejected.isEmpty { text += " rejected=\(rejected.count)" }
        if !duplicates.isEmpty { text += " duplicates=\(duplicates.count)" }
        return text
    }
}
