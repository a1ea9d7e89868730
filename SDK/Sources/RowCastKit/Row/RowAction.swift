/// Something a subscriber can do with a row, e.g. tapping it:
/// `{"name": "select", "kind": "show_detail", "params": {...}}`.
///
/// `name` is what the client sends back in a select request; `kind` and `params` tell the
/// client what the action will do, so it can prefetch or render an affordance.
public struct RowAction: Sendable, Equatable {
    /// The action's name, sent back in a select request (`select` for a tap).
    public var name: String
    /// What the action does, e.g. `show_detail`, `open_url`.
    public var kind: String
    /// The action's parameters.
    public var params: JSONObject

    /// An action named `name`.
    public init(name: String, kind: String, params: JSONObject = JSONObject()) {
        self.name = name
        self.kind = kind
        self.params = params
    }

    /// The tap action: named `select`.
    public static func select(kind: String, params: JSONObject = JSONObject()) -> RowAction {
        RowAction(name: "select", kind: kind, params: params)
    }

    /// Appends `{"name":...,"kind":...,"params":{...}}`.
    public func write(to writer: inout JSONWriter) {
        writer.writeRaw("{\"name\":")
        writer.write(string: name)
        writer.writeRaw(",\"kind\":")
        writer.write(string: kind)
        writer.writeRaw(",\"params\":")
        writer.write(.object(params))
        writer.writeRaw("}")
    }
}
