import RowCastJSON

/// Where a row is (`locate`): the table view's `indexPathForRow`, as of a feed state.
public struct RowLocation: Sendable, Equatable {
    /// The section's index.
    public var section: Int
    /// The row's index within its section.
    public var row: Int
    /// The section's id.
    public var sectionID: String
    /// The feed's seq the indexes hold at.
    public var seq: Int
    /// The feed's epoch.
    public var epoch: String

    /// Reads a `locate` reply.
    public init(reply: JSONValue) throws(RowCastClientError) {
        guard let section = reply["section"]?.numberValue, let row = reply["row"]?.numberValue,
            let sectionID = reply["sectionId"]?.stringValue, let seq = reply["seq"]?.numberValue,
            let epoch = reply["epoch"]?.stringValue
        else {
            throw RowCastClientError(
                code: "invalid_reply",
                message: "a locate reply without section, row, sectionId, seq and epoch: \(reply)")
        }
        self.section = Int(section)
        self.row = Int(row)
        self.sectionID = sectionID
        self.seq = Int(seq)
        self.epoch = epoch
    }
}
