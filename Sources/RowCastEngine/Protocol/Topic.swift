/// The PUB topic frames of docs/PROTOCOL.md: a name followed by one NUL byte, so that a
/// subscriber of feed `car` does not also get feed `cars` (ZeroMQ filters by prefix).
public enum Topic {
    /// `rows.<feed>\0`: deltas of a feed.
    public static func rows(_ feed: String) -> [UInt8] { frame("rows." + feed) }
    /// `errors.<feed>\0`: error events of a feed.
    public static func errors(_ feed: String) -> [UInt8] { frame("errors." + feed) }
    /// `errors\0`: error events that name no feed.
    public static let feedlessErrors: [UInt8] = frame("errors")
    /// `actions.<feed>\0`: action events of a feed.
    public static func actions(_ feed: String) -> [UInt8] { frame("actions." + feed) }
    /// `heartbeat\0`.
    public static let heartbeat: [UInt8] = frame("heartbeat")

    /// `name` followed by the NUL terminator.
    public static func frame(_ name: String) -> [UInt8] { Array(name.utf8) + [0] }
}
