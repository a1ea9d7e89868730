/// The part of a feed a `snapshot` asks for: `limit` rows counted over every section in order,
/// from row `offset` or centred on the row of an item (`around`). Native clients page through
/// a large feed with it, and show the rows around one, without taking the whole feed.
public struct SnapshotWindow: Sendable, Equatable {
    /// Where the window starts.
    public enum Start: Sendable, Equatable {
        /// At this row (0: the first), counted over every section in order.
        case offset(Int)
        /// So that this item's row is in the middle (as near as the feed's ends allow).
        case around(String)
    }

    /// The most rows a window may ask for.
    public static let maximumLimit = 10_000

    /// Where it starts.
    public var start: Start
    /// How many rows it holds at most.
    public var limit: Int

    /// A window of `limit` rows from `start`.
    public init(start: Start, limit: Int) {
        self.start = start
        self.limit = limit
    }

    /// The first row of the window in a feed of `total` rows, `around`'s row being row `row`:
    /// `limit / 2` rows before it where there are that many, fewer near either end.
    public static func offset(around row: Int, limit: Int, total: Int) -> Int {
        max(0, min(row - limit / 2, total - limit))
    }
}
