/// Why a byte string is not the JSON RowCast accepts, and where it went wrong.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The byte offset at which parsing stopped.
    public let offset: Int
    /// What was wrong there, in words.
    public let reason: String

    /// An error at `offset` for `reason`.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// "reason at byte N".
    public var description: String { "\(reason) at byte \(offset)" }
}
