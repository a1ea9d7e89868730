/// One exported plugin's controllers, dispatched by type: the object behind the descriptor's
/// `context` pointer.
///
/// Made once per process by ``RowCastPluginExport`` and never freed. Not `Sendable`: rowcastd
/// calls a plugin from one thread at a time (the ABI's threading rule), and the dispatch
/// tables are never mutated after `init`. The one thing a call changes, the kept output buffer,
/// is claimed with a try-lock, so a caller that breaks the rule (a plugin's own tests running
/// in parallel, say) gets a buffer of its own instead of a race.
final class PluginRuntime {
    /// Renders and handles selects for one item type.
    struct CellEntry {
        /// Item → model → row.
        let render: (Item) throws(ItemError) -> Row
        /// Request and item → model → event and change.
        let handle: (ActionRequest, Item) throws(ItemError) -> ActionResult
    }

    /// The plugin name, for messages.
    let name: String
    /// The item types, in the order the controllers list them, without repeats.
    let itemTypes: [String]
    /// The section types whose headers the plugin renders.
    let headerTypes: [String]
    /// What is wrong with the export call, if anything; a non-empty list exports no types.
    let problems: [String]

    private let cells: [String: CellEntry]
    /// The same entries as `cells`, in a list scanned with `==`: a plugin has one or two item
    /// types, and comparing the item's type with each costs less than hashing it (an equal
    /// small string compares in one step). Empty when there are more than `cellListLimit`.
    private let cellList: [(type: String, entry: CellEntry)]
    /// The most item types `cellList` holds; past it, lookups hash into `cells`.
    private static let cellListLimit = 4
    private let headers: [String: (SectionHeader) throws(ItemError) -> Row]

    /// Where rows are written, call after call (``CallOutcome/inOutput``): the buffer is kept,
    /// so rendering a row allocates no output array of its own.
    /// Held from the row's writing to ``sendOutput(_:)``, on the calling thread.
    private var output = JSONWriter(capacity: PluginRuntime.outputCapacity)
    /// Who holds ``output``: taken with `tryLock` by a render, given back by `sendOutput`.
    private let outputLock = PthreadMutex()

    /// The room ``output`` starts with (and gets again after a huge row).
    static let outputCapacity = 16 * 1024
    /// The largest output buffer kept between calls; one grown past it by a huge row is let go.
    /// Above `outputCapacity`, since an array may get a little more room than it asks for.
    static let keptOutputCapacity = 64 * 1024

    /// Makes one instance of every controller and indexes them by type.
    init(name: String, controllers: [any CellController.Type], headers headerControllers: [any HeaderController.Type]) {
        var problems: [String] = []
        if name.isEmpty { problems.append("the plugin name is empty") }
        if controllers.isEmpty { problems.append("no cell controllers were given") }

        var cells: [String: CellEntry] = [:]
        var owners: [String: String] = [:]
        var itemTypes: [String] = []
        for controller in controllers {
            let owner = String(describing: controller)
            for type in controller.itemTypes {
                if type.isEmpty {
                    problems.append("\(owner) lists an empty item type")
                } else if let other = owners[type] {
                    problems.append("\(owner) and \(other) both claim item type \"\(type)\"")
                } else {
                    owners[type] = owner
                    itemTypes.append(type)
                    cells[type] = Self.cellEntry(controller)
                }
            }
        }

        var headers: [String: (SectionHeader) throws(ItemError) -> Row] = [:]
        var headerOwners: [String: String] = [:]
        var headerTypes: [String] = []
        for controller in headerControllers {
            let owner = String(describing: controller)
            for type in controller.sectionTypes {
                if type.isEmpty {
                    problems.append("\(owner) lists an empty section type")
                } else if let other = headerOwners[type] {
                    problems.append("\(owner) and \(other) both claim section type \"\(type)\"")
                } else {
                    headerOwners[type] = owner
                    headerTypes.append(type)
                    headers[type] = Self.headerRenderer(controller)
                }
            }
        }

        self.name = name
        self.problems = problems
        self.itemTypes = problems.isEmpty ? itemTypes : []
        self.headerTypes = problems.isEmpty ? headerTypes : []
        self.cells = cells
        cellList =
            itemTypes.count <= Self.cellListLimit
            ? itemTypes.compactMap { type in cells[type].map { (type: type, entry: $0) } } : []
        self.headers = headers
    }

    // MARK: - Calls

    /// Renders an item given as JSON bytes.
    func renderItem(_ input: UnsafeRawBufferPointer) -> CallOutcome {
        do throws(ItemError) {
            let item = try Item(parsing: input)
            guard let entry = cell(for: item.type) else { throw unknownType(item.type, kind: "item") }
            return written(try entry.render(item))
        } catch {
            return .itemError(error)
        }
    }

    /// Renders a section header given as JSON bytes.
    func renderHeader(_ input: UnsafeRawBufferPointer) -> CallOutcome {
        do throws(ItemError) {
            let value: JSONValue
            do { value = try JSONParser.parse(input) } catch { throw .invalidJSON("the section", error) }
            let header = try SectionHeader(json: value)
            guard let render = headers[header.type] else { throw unknownType(header.type, kind: "section") }
            return written(try render(header))
        } catch {
            return .itemError(error)
        }
    }

    /// Handles a select request `{"feed", "id", "action", "item": {...}}`; no event is `null`.
    func select(_ input: UnsafeRawBufferPointer) -> CallOutcome {
        do throws(ItemError) {
            let value: JSONValue
            do { value = try JSONParser.parse(input) } catch { throw .invalidJSON("the select request", error) }
            guard let request = value.objectValue else {
                throw ItemError(
                    code: .invalidInput, message: "a select request must be a JSON object, got \(value.kindName)")
            }
            let envelope = Envelope(fields: request)
            let action = try envelope.string("action")
            let item = try Item(object: try envelope.object("item"))
            guard let entry = cell(for: item.type) else { throw unknownType(item.type, kind: "item") }
            // Through handle, so a controller that implements only handle answers both calls.
            let actionRequest = ActionRequest(feed: request["feed"]?.stringValue ?? "", action: action)
            guard let event = try entry.handle(actionRequest, item).event else { return .ok(Array("null".utf8)) }
            return .ok(JSONValue.object(event).serialized())
        } catch {
            return .itemError(error)
        }
    }

    /// Handles an action request `{"feed","id","action","value"?,"requester"?,"item":{...}}`
    /// (`handle_action`): the output is ``ActionResult/jsonValue``.
    func handleAction(_ input: UnsafeRawBufferPointer) -> CallOutcome {
        do throws(ItemError) {
            let value: JSONValue
            do { value = try JSONParser.parse(input) } catch { throw .invalidJSON("the action request", error) }
            guard let object = value.objectValue else {
                throw ItemError(
                    code: .invalidInput, message: "an action request must be a JSON object, got \(value.kindName)")
            }
            let envelope = Envelope(fields: object)
            let request = ActionRequest(
                feed: object["feed"]?.stringValue ?? "",
                action: try envelope.string("action"),
                value: object["value"],
                requester: object["requester"]?.stringValue
            )
            let item = try Item(object: try envelope.object("item"))
            guard let entry = cell(for: item.type) else { throw unknownType(item.type, kind: "item") }
            return .ok(try entry.handle(request, item).jsonValue.serialized())
        } catch {
            return .itemError(error)
        }
    }

    /// Writes `row` into ``output`` when no other thread holds it (`.inOutput`: the caller then
    /// owes a ``sendOutput(_:)``), else into an array of its own (`.ok`).
    private func written(_ row: Row) -> CallOutcome {
        guard outputLock.tryLock() else { return .ok(row.serialized()) }
        row.write(to: &output)
        return .inOutput
    }

    /// Hands ``output`` to `send` where it is, then empties it for the next call, keeping its
    /// buffer unless a huge row grew it past `keptOutputCapacity`, and gives it back. Called
    /// once after each `.inOutput`, on the thread that made it.
    func sendOutput(_ send: (UnsafeBufferPointer<UInt8>) -> Void) {
        Self.drain(&output.bytes, into: send)
        outputLock.unlock()
    }

    /// `sendOutput` on the buffer itself, reached in place (no copy of the array in between).
    private static func drain(_ bytes: inout [UInt8], into send: (UnsafeBufferPointer<UInt8>) -> Void) {
        bytes.withUnsafeBufferPointer(send)
        if bytes.capacity > keptOutputCapacity {
            bytes = []
            bytes.reserveCapacity(outputCapacity)
        } else {
            bytes.removeAll(keepingCapacity: true)
        }
    }

    // MARK: - Helpers

    /// The entry that renders items of `type`, if any.
    private func cell(for type: String) -> CellEntry? {
        if cellList.isEmpty { return cells[type] }
        for candidate in cellList where candidate.type == type { return candidate.entry }
        return nil
    }

    private func unknownType(_ type: String, kind: String) -> ItemError {
        ItemError(
            code: .unknownType, field: "type", message: "plugin \(name) has no controller for \(kind) type \"\(type)\"")
    }

    private static func cellEntry<Controller: CellController>(_ type: Controller.Type) -> CellEntry {
        let controller = Controller()
        return CellEntry(
            render: { (item: Item) throws(ItemError) -> Row in
                controller.row(for: try controller.model(from: item), item: item)
            },
            handle: { (request: ActionRequest, item: Item) throws(ItemError) -> ActionResult in
                try controller.handle(request, model: try controller.model(from: item), item: item)
            }
        )
    }

    private static func headerRenderer<Controller: HeaderController>(
        _ type: Controller.Type
    ) -> (SectionHeader) throws(ItemError) -> Row {
        let controller = Controller()
        return { (header: SectionHeader) throws(ItemError) -> Row in
            controller.row(for: try controller.model(from: header), header: header)
        }
    }
}

@available(*, unavailable)
extension PluginRuntime: Sendable {}
