import RowCastKit

/// Renders items through one cell controller in a unit test, the way the exported plugin does
/// (item JSON → ``Item`` → model → ``Row``), without building or loading a library.
///
/// ```swift
/// let harness = ControllerHarness<ArticleController>()
/// let row = try harness.row(#"{"id":"1","type":"article","data":{"title":"Hello"}}"#)
/// #expect(row == Row(cell: "ArticleCell", height: 64, content: ["title": "Hello"]))
/// #expect(harness.error(id: "2", data: [:])?.field == "title")
/// ```
public struct ControllerHarness<Controller: CellController> {
    /// The controller items are rendered through.
    public let controller: Controller

    /// A harness over `controller` (by default a new one, as the plugin makes it).
    public init(_ controller: Controller = Controller()) {
        self.controller = controller
    }

    /// The item in `json`, an item object as a publisher sends it.
    public static func item(_ json: String) throws(ItemError) -> Item {
        let value: JSONValue
        do { value = try JSONParser.parse(json) } catch { throw .invalidJSON("the item", error) }
        return try Item(json: value)
    }

    /// The item `{"id","type","data"}`; `type` defaults to the controller's first item type.
    public static func item(id: String, type: String? = nil, data: JSONObject) throws(ItemError) -> Item {
        let object: JSONObject = [
            "id": .string(id), "type": .string(type ?? Controller.itemTypes.first ?? ""), "data": .object(data),
        ]
        return try Item(object: object)
    }

    /// The row for `item`, or the ``ItemError`` the controller rejects it with.
    public func row(for item: Item) throws(ItemError) -> Row {
        controller.row(for: try controller.model(from: item), item: item)
    }

    /// The row for the item in `json`, or the error it is rejected with.
    public func row(_ json: String) throws(ItemError) -> Row {
        try row(for: try Self.item(json))
    }

    /// The row for the item `{"id","type","data"}`, or the error it is rejected with.
    public func row(id: String, type: String? = nil, data: JSONObject) throws(ItemError) -> Row {
        try row(for: try Self.item(id: id, type: type, data: data))
    }

    /// The row as the plugin writes it to rowcastd (compact JSON, without `id` and `type`).
    public func rowJSON(_ json: String) throws(ItemError) -> String {
        String(decoding: try row(json).serialized(), as: UTF8.self)
    }

    /// The error the controller rejects the item in `json` with, or nil when it renders.
    public func error(_ json: String) -> ItemError? {
        do { _ = try row(json) } catch { return error }
        return nil
    }

    /// The error the controller rejects the item `{"id","type","data"}` with, or nil.
    public func error(id: String, type: String? = nil, data: JSONObject) -> ItemError? {
        do { _ = try row(id: id, type: type, data: data) } catch { return error }
        return nil
    }

    /// The event a `select` of `action` on the item in `json` publishes (nil: none).
    public func select(_ action: String, on json: String) throws(ItemError) -> JSONObject? {
        let item = try Self.item(json)
        return try controller.select(action: action, model: try controller.model(from: item), item: item)
    }

    /// What the controller's action handler returns for `request` on the item in `json`: the
    /// event and the change (the value is not checked here; rowcastd checks it first).
    public func handle(_ request: ActionRequest, on json: String) throws(ItemError) -> ActionResult {
        let item = try Self.item(json)
        return try controller.handle(request, model: try controller.model(from: item), item: item)
    }
}
