/// One action a declarative cell offers on its rows: `{name, kind, field, params}`.
public struct CellActionSpec: Sendable {
    /// The name a select request sends back.
    public var name: String
    /// What the action does.
    public var kind: CellActionKind
    /// The field an `edit` or `toggle` action changes (nil for the other kinds).
    public var field: String?
    /// Parameters for the client, rendered over the item like content.
    public var params: [(key: String, value: CellContent)]

    /// An action spec.
    public init(name: String, kind: CellActionKind, field: String?, params: [(key: String, value: CellContent)]) {
        self.name = name
        self.kind = kind
        self.field = field
        self.params = params
    }
}
