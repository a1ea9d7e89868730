/// What an action does to its row: a client picks its control from it (a tap, a text field,
/// a switch, a swipe to delete) and rowcastd checks a select's `value` against it.
///
/// On the wire it is the action's `role` member, with `field` and `valueType` for the roles
/// that have them; an action without `role` is a tap (`select`).
public enum ActionRole: Sendable, Equatable {
    /// A tap: takes no value.
    case select
    /// An edit of one field: takes a value of `value`'s type.
    case edit(field: String, value: ActionValueType)
    /// A switch on one field: takes `true` or `false`, or no value (flip it).
    case toggle(field: String)
    /// A destructive delete of the row: takes no value.
    case delete
    /// Anything else the plugin defines: takes any value, or none.
    case custom

    /// The role's name on the wire: `select`, `edit`, `toggle`, `delete` or `custom`.
    public var name: String {
        switch self {
        case .select: "select"
        case .edit: "edit"
        case .toggle: "toggle"
        case .delete: "delete"
        case .custom: "custom"
        }
    }

    /// The field an `edit` or `toggle` changes (nil for the other roles).
    public var field: String? {
        switch self {
        case .edit(let field, _), .toggle(let field): field
        case .select, .delete, .custom: nil
        }
    }

    /// Why a select of an action with this role may not carry `value` (nil: it may; a nil
    /// `value` means the request had none).
    public func problem(with value: JSONValue?) -> String? {
        switch self {
        case .select, .delete:
            return value == nil ? nil : "a \(name) action takes no value"
        case .edit(_, let type):
            guard let value else { return "an edit action needs a value (\(type.rawValue))" }
            return type.problem(with: value)
        case .toggle:
            guard let value else { return nil }
            return ActionValueType.bool.problem(with: value)
        case .custom:
            return nil
        }
    }

    /// Reads the role of a row action's JSON object (`role`, `field`, `valueType`); throws a
    /// message naming the member at fault.
    public init(action: JSONObject) throws(ItemError) {
        guard let roleValue = action["role"] else {
            self = .select
            return
        }
        guard let role = roleValue.stringValue else {
            throw ItemError(
                code: .invalidField, field: "role",
                message: "an action's \"role\" must be a string, got \(roleValue.kindName)")
        }
        func field() throws(ItemError) -> String {
            guard let field = action["field"]?.stringValue, !field.isEmpty else {
                throw ItemError(
                    code: .missingField, field: "field", message: "a \(role) action needs a non-empty string \"field\"")
            }
            return field
        }
        switch role {
        case "select": self = .select
        case "delete": self = .delete
        case "custom": self = .custom
        case "toggle": self = .toggle(field: try field())
        case "edit":
            let name = try field()
            guard let typeName = action["valueType"]?.stringValue, let type = ActionValueType(rawValue: typeName) else {
                let known = ActionValueType.allCases.map(\.rawValue).joined(separator: ", ")
                throw ItemError(
                    code: .invalidField, field: "valueType",
                    message: "an edit action needs \"valueType\", one of \(known)")
            }
            self = .edit(field: name, value: type)
        default:
            throw ItemError(
                code: .invalidField, field: "role",
                message: "unknown action role \"\(role)\" (expected select, edit, toggle, delete or custom)")
        }
    }

    /// Appends `,"role":...` and `field`/`valueType` when they apply; nothing for `select`,
    /// the default, so rows without roles keep their bytes.
    func write(to stage: inout JSONStage) {
        guard self != .select else { return }
        stage.writeRaw(",\"role\":")
        stage.write(string: name)
        if let field {
            stage.writeRaw(",\"field\":")
            stage.write(string: field)
        }
        if case .edit(_, let type) = self {
            stage.writeRaw(",\"valueType\":")
            stage.write(string: type.rawValue)
        }
    }
}
