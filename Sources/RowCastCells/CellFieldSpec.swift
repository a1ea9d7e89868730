/// One field a declarative cell reads from its items' `data` (or its headers' `header`): its
/// name, its type, and whether an item may leave it out. Written `title: string` or
/// `preview: string?` in a cell file.
public struct CellFieldSpec: Sendable, Equatable {
    /// The field's name in the item's `data`.
    public var name: String
    /// The type its value must have.
    public var type: CellFieldType
    /// Whether the field may be absent or `null`.
    public var optional: Bool

    /// A field spec.
    public init(name: String, type: CellFieldType, optional: Bool) {
        self.name = name
        self.type = type
        self.optional = optional
    }
}
