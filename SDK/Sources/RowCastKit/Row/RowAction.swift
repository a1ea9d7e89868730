/// Something a subscriber can do with a row, e.g. tapping it:
/// `{"name": "select", "kind": "show_detail", "params": {...}}`.
///
/// `name` is what the client sends back in a select request; `kind` and `params` tell the
/// client what the action will do, so it can prefetch or render an affordance; `role` says
/// what it does to the row (a tap, an edit of one field, a toggle, a delete, or custom) and so
/// which `value` a select of it may carry.
public struct RowAction: Sendable, Equatable {
    /// The action's name, sent back in a select request (`select` for a tap).
    public var name: String
    /// What the action does, e.g. `show_detail`, `open_url`.
    public var kind: String
    /// The action's parameters.
    public var params: JSONObject
    /// What the action does to the row (a tap by default).
    public var role: ActionRole

    /// An action named `name`.
    public init(name: String, kind: String, params: JSONObject = JSONObject(), role: ActionRole = .select) {
        self.name = name
        self.kind = kind
        self.params = params
        self.role = role
    }

    /// An edit of one data field, taking a value of `value`'s type (kind `edit` by default).
    public static func edit(
        _ name: String, field: String, value: ActionValueType, kind: String = "edit", params: JSONObject = JSONObject()
    ) -> RowAction {
        RowAction(name: name, kind: kind, params: params, role: .edit(field: field, value: value))
    }

    /// A switch on one boolean data field (kind `toggle` by default).
    public static func toggle(
        _ name: String, field: String, kind: String = "toggle", params: JSONObject = JSONObject()
    ) -> RowAction {
        RowAction(name: name, kind: kind, params: params, role: .toggle(field: field))
    }

    /// A destructive delete of the row, e.g. swipe to delete (kind `delete` by default).
    public static func delete(
        _ name: String = "delete", kind: String = "delete", params: JSONObject = JSONObject()
    ) -> RowAction {
        RowAction(name: name, kind: kind, params: params, role: .delete)
    }

    /// An action of the plugin's own, taking any value or none.
    public static func custom(_ name: String, kind: String, params: JSONObject = JSONObject()) -> RowAction {
        RowAction(name: name, kind: kind, params: params, role: .custom)
    }

    /// The tap action: named `select`.
    public static func select(kind: String, params: JSONObject = JSONObject()) -> RowAction {
        RowAction(name: "select", kind: kind, params: params)
    }

    /// Appends `{"name":...,"kind":...,"params":{...}}`, then `role`, `field` and
    /// `valueType` when the role is not a tap.
    public func write(to writer: inout JSONWriter) {
        writer.withStage { write(to: &$0) }
    }

    /// Appends the action's JSON to a stage (``Row`` writes its actions so).
    func write(to stage: inout JSONStage) {
        stage.writeRaw("{\"name\":")
        stage.write(string: name)
        stage.writeRaw(",\"kind\":")
        stage.write(string: kind)
        stage.writeRaw(",\"params\":")
        stage.write(object: params)
        role.write(to: &stage)
        stage.writeRaw("}")
    }
}
