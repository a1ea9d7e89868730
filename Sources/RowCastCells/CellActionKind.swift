/// What a row action of a declarative cell does, so a client can draw the right affordance:
/// a tap, an edit of one field, a toggle of a boolean field, a destructive delete, or a kind
/// of the app's own.
public enum CellActionKind: Sendable, Equatable {
    /// A tap on the row.
    case select
    /// An edit of one field; the select request carries the new value.
    case edit
    /// A switch over a boolean field.
    case toggle
    /// A destructive delete of the row.
    case delete
    /// A kind the app defines (`open_url`, `share`, ...).
    case custom(String)

    /// The kinds with a meaning of their own, for error messages.
    public static let builtInNames = ["select", "edit", "toggle", "delete"]

    /// The kind named in a cell file.
    public init(name: String) {
        switch name {
        case "select": self = .select
        case "edit": self = .edit
        case "toggle": self = .toggle
        case "delete": self = .delete
        default: self = .custom(name)
        }
    }

    /// The kind as the row's action JSON names it.
    public var name: String {
        switch self {
        case .select: "select"
        case .edit: "edit"
        case .toggle: "toggle"
        case .delete: "delete"
        case .custom(let name): name
        }
    }
}
