/// A stored item whose record failed its checksum or did not parse when the store was read.
/// It is not served: its feed starts a new epoch when the damage is first found, and it stays
/// in the quarantine, with `reason`, until the item is sent again, deleted, or its feed reset.
public struct DamagedItem: Sendable, Equatable {
    /// The feed.
    public var feed: String
    /// The item id, as read (the key of the row).
    public var id: String
    /// The item type, as read (it may be part of the damage).
    public var type: String
    /// What is wrong, e.g. `checksum mismatch (stored 0x1234abcd, read 0x89ef0123)`.
    public var reason: String
    /// Whether an earlier start found it already (its feed started a new epoch then).
    public var known: Bool
    /// The id's bytes as stored (the damage may have left them not UTF-8, which `id` repairs),
    /// so the store can find the row again; nil when the engine found it (as `id`).
    public var storedID: [UInt8]?

    /// A damaged item from its parts.
    public init(feed: String, id: String, type: String, reason: String, known: Bool, storedID: [UInt8]? = nil) {
        self.feed = feed
        self.id = id
        self.type = type
        self.reason = reason
        self.known = known
        self.storedID = storedID
    }
}
