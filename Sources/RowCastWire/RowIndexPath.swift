/// The place of a row in a feed: a section index and a row index within it, as in UIKit, and
/// `[section,row]` on the wire. rowcastd's diff writes them; clients read them.
public struct RowIndexPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The index of the section in the feed's section list.
    public var section: Int
    /// The index of the row within its section.
    public var row: Int

    /// The index path of row `row` in section `section`.
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    /// Orders by section, then by row.
    @inlinable
    public static func < (lhs: RowIndexPath, rhs: RowIndexPath) -> Bool {
        lhs.section != rhs.section ? lhs.section < rhs.section : lhs.row < rhs.row
    }

    /// `[section,row]`, as on the wire.
    public var description: String { "[\(section),\(row)]" }
}
