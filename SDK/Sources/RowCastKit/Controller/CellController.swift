/// Renders the items of one or more types into rows: the cell controller of the table-view
/// pattern, with a typed model.
///
/// rowcastd calls a plugin from one thread at a time, so a controller needs no locking. One
/// instance is made per plugin load, with `init()`, and kept for the life of the process.
///
/// ```swift
/// struct ProductController: CellController {
///     static let itemTypes = ["product"]
///     func model(from item: Item) throws(ItemError) -> Product { ... }
///     func row(for model: Product, item: Item) -> Row { ... }
/// }
/// ```
public protocol CellController {
    /// What the controller reads out of an item before rendering it.
    associatedtype Model

    /// The item types this controller renders.
    static var itemTypes: [String] { get }

    /// Makes the controller; called once per plugin load.
    init()

    /// Reads the model out of an item, or throws an ``ItemError`` naming the field at fault.
    func model(from item: Item) throws(ItemError) -> Model

    /// Renders a model into a row. It cannot fail: validation belongs in ``model(from:)``.
    func row(for model: Model, item: Item) -> Row

    /// Handles a select request (`action` is the ``RowAction/name``) and returns the event to
    /// publish, or `nil` to publish none. Default: `nil` for every action.
    func select(action: String, model: Model, item: Item) throws(ItemError) -> JSONObject?

    /// Handles a select request with its value and requester, and returns the event and the
    /// change to make to the item (update some data fields, or delete it). The value has
    /// been checked against the action's ``ActionRole`` already. Default: the event
    /// ``select(action:model:item:)`` returns, with no change.
    func handle(_ request: ActionRequest, model: Model, item: Item) throws(ItemError) -> ActionResult
}

extension CellController {
    /// No event for any action.
    public func select(action: String, model: Model, item: Item) throws(ItemError) -> JSONObject? { nil }

    /// The event of ``select(action:model:item:)``, no change.
    public func handle(_ request: ActionRequest, model: Model, item: Item) throws(ItemError) -> ActionResult {
        ActionResult(event: try select(action: request.action, model: model, item: item))
    }
}
