/// A row's position: section index, then row index within the section.
public struct IndexPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The section index.
    public var section: Int
    /// The row index within the section.
    public var row: Int

    /// A position from its parts.
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    /// Orders by section, then row.
    public static func < (lhs: IndexPath, rhs: IndexPath) -> Bool {
        lhs.section != rhs.section ? lhs.section < rhs.section : lhs.row < rhs.row
    }

    /// `[section,row]`.
    public var description: String { "[\(section),\(row)]" }
}
