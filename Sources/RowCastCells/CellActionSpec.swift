import RowCastKit

/// One action a declarative cell offers on its rows: `{name, role, kind, field, value, params}`
/// in a cell file. The role says what it does (docs/PROTOCOL.md, "Interactions"); the kind is
/// the client's own word for it (`open_url`, `share`).
public struct CellActionSpec: Sendable {
    /// The name a select request sends back.
    public var name: String
    /// What the action does: a tap, an edit of a field, a toggle, a delete, or custom.
    public var role: ActionRole
    /// What the client shows or does (`open_url`, `edit`); the role's name when the file gives none.
    public var kind: String
    /// Parameters for the client, rendered over the item like content.
    public var params: [(key: String, value: CellContent)]

    /// An action spec.
    public init(name: String, role: ActionRole, kind: String, params: [(key: String, value: CellContent)]) {
        self.name = name
        self.role = role
        self.kind = kind
        self.params = params
    }

    /// The value type an edit of a field of `type` takes unless the file names one.
    static func defaultValueType(for type: CellFieldType) -> ActionValueType {
        switch type {
        case .string, .date: .string
        case .number: .number
        case .integer: .integer
        case .bool: .bool
        case .url: .url
        }
    }
}
