import Dispatch
import RowCastPluginHosting
import RowCastKit

#if canImport(Glibc)
import Glibc
#endif

/// The built-in plugin: renders the types of the declarative cells in rowcastd itself (cell
/// files are configuration and run no foreign code, so they need no plugin host), and hands
/// every other type to the plugins' renderer. A type that a plugin claims stays the plugin's;
/// the cell's claim is refused with a reason.
///
/// Not `Sendable`: the loop thread alone calls it, like the renderer it wraps.
public final class DeclarativeRenderer: RowRendering {
    /// The cells in use.
    public let catalog: CellCatalog
    /// The plugins' renderer.
    public let plugins: any RowRendering
    /// The wall clock, in seconds since 1970, that `relative_date` counts from.
    private let now: @Sendable () -> Double
    /// Renders big batches of cell rows on a thread of their own, beside the loop.
    private let worker = DispatchQueue(label: "rowcast.cells", qos: .userInitiated)

    /// A renderer of `catalog`'s cells over `plugins`.
    public init(
        catalog: CellCatalog, plugins: any RowRendering,
        now: @escaping @Sendable () -> Double = DeclarativeRenderer.wallClock
    ) {
        var catalog = catalog
        for type in catalog.itemTypes {
            if let owner = plugins.rendererIdentity(forItemType: type) { catalog.yield(itemType: type, to: owner) }
        }
        self.catalog = catalog
        self.plugins = plugins
        self.now = now
    }

    /// Seconds since 1970, now.
    public static func wallClock() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Renders an item: with its cell when the catalog has one, else with a plugin.
    public func renderItem(type: String, input: [UInt8]) -> RenderOutcome {
        guard let definition = catalog.definition(forItemType: type) else {
            return plugins.renderItem(type: type, input: input)
        }
        return Self.renderItem(input, with: definition, now: now())
    }

    private static func renderItem(_ input: [UInt8], with definition: CellDefinition, now: Double) -> RenderOutcome {
        outcome { () throws(ItemError) -> [UInt8] in
            let item = try Item(json: try parse(input, what: "the item"))
            return try definition.rowBytes(
                fields: item.data, id: item.id, type: item.type, section: item.section, now: now)
        }
    }

    /// Renders a section header: with its cell when the catalog has one, else with a plugin.
    public func renderHeader(type: String, input: [UInt8]) -> RenderOutcome {
        guard let definition = catalog.definition(forSectionType: type) else {
            return plugins.renderHeader(type: type, input: input)
        }
        return Self.renderHeader(input, with: definition, now: now())
    }

    private static func renderHeader(_ input: [UInt8], with definition: CellDefinition, now: Double) -> RenderOutcome {
        outcome { () throws(ItemError) -> [UInt8] in
            let header = try SectionHeader(json: try parse(input, what: "the section"))
            return try definition.rowBytes(
                fields: header.header, id: header.id, type: header.type, section: nil, now: now)
        }
    }

    /// The outcome of one cell job (an item or a header: selects are answered on the loop).
    static func render(_ job: CellJob, now: Double) -> RenderOutcome {
        job.header
            ? renderHeader(job.input, with: job.definition, now: now)
            : renderItem(job.input, with: job.definition, now: now)
    }

    /// The event of an action of a declarative cell (`select` of ABI revision 1: no change).
    public func select(type: String, input: [UInt8]) -> RenderOutcome {
        guard catalog.definition(forItemType: type) != nil else { return plugins.select(type: type, input: input) }
        let outcome = act(type: type, input: input)
        guard case .ok(let output) = outcome else { return outcome }
        guard case .object(let result)? = try? JSONParser.parse(output) else {
            return .failed(message: "the cell's action result is not an object")
        }
        return .ok((result["event"] ?? .null).serialized())
    }

    /// Runs an action of a declarative cell; rowcastd has already checked that the row offers
    /// it and that the value fits its role. Every action publishes the event
    /// `{"kind", "action", "value"?, params...}`; by role it also changes the item: an `edit`
    /// sets its field to the value, a `toggle` sets it to the value or flips it, a `delete`
    /// deletes the item. Other types go to their plugin.
    public func act(type: String, input: [UInt8]) -> RenderOutcome {
        guard let definition = catalog.definition(forItemType: type) else {
            return plugins.act(type: type, input: input)
        }
        do throws(ItemError) {
            let request = try Self.parse(input, what: "the select request")
            guard let name = request["action"]?.stringValue,
                let action = definition.actions.first(where: { $0.name == name })
            else {
                throw ItemError.unknownAction(request["action"]?.stringValue ?? "")
            }
            let value = request["value"].flatMap { $0.isNull ? nil : $0 }
            return .ok(
                try CellActionHandler(definition: definition, action: action, now: now()).result(
                    value: value, item: request["item"]
                ).jsonValue.serialized())
        } catch {
            return .rejected(message: error.message, field: error.field, code: error.code.rawValue)
        }
    }

    /// Renders `jobs`: the cells' own at once, the rest through the plugins' renderer in one go.
    public func render(_ jobs: [RenderJob]) -> [RenderOutcome] {
        let stream = startRendering(jobs)
        return jobs.indices.map(stream.outcome(at:))
    }

    /// Starts `jobs`: the plugins' share goes out to their hosts first; then the cells' rows
    /// are rendered on the cells' own thread when there are enough of them to be worth it
    /// (the loop applies the first rows while the rest are rendered, as with plugin hosts),
    /// else here.
    public func startRendering(_ jobs: [RenderJob]) -> any RenderStream {
        var pluginJobs: [RenderJob] = []
        var pluginIndex = [Int?](repeating: nil, count: jobs.count)
        var cellJobs: [CellJob] = []
        var cellIndex = [Int?](repeating: nil, count: jobs.count)
        var inline = [RenderOutcome?](repeating: nil, count: jobs.count)
        for (index, job) in jobs.enumerated() {
            let header = job.kind == .renderHeader
            guard
                let definition = header
                    ? catalog.definition(forSectionType: job.type) : catalog.definition(forItemType: job.type)
            else {
                pluginIndex[index] = pluginJobs.count
                pluginJobs.append(job)
                continue
            }
            if job.kind == .select {
                inline[index] = select(type: job.type, input: job.input)
            } else if job.kind == .action {
                inline[index] = act(type: job.type, input: job.input)
            } else {
                cellIndex[index] = cellJobs.count
                cellJobs.append(CellJob(header: header, input: job.input, definition: definition))
            }
        }
        let pluginStream = pluginJobs.isEmpty ? nil : plugins.startRendering(pluginJobs)
        let batch = CellRenderBatch(count: cellJobs.count)
        let now = now()
        if cellJobs.count >= Self.smallestThreadedBatch {
            worker.async { [cellJobs] in for job in cellJobs { batch.deliver(Self.render(job, now: now)) } }
        } else {
            for job in cellJobs { batch.deliver(Self.render(job, now: now)) }
        }
        return MergedRenderStream(
            inline: inline, pluginIndex: pluginIndex, plugins: pluginStream, cellIndex: cellIndex, cells: batch)
    }

    /// Below this many cell rows a batch is rendered on the loop: handing it over would cost
    /// more than it saves.
    static let smallestThreadedBatch = 32

    /// Yes: a batch's cell rows are rendered beside the loop (and the plugins' renderer, if it
    /// does not batch, answers each of its jobs in turn).
    public var rendersInBatches: Bool { true }

    /// The cell's identity for its types, else the plugin's.
    public func rendererIdentity(forItemType type: String) -> String? {
        catalog.definition(forItemType: type)?.rendererIdentity ?? plugins.rendererIdentity(forItemType: type)
    }

    /// As `rendererIdentity(forItemType:)`, for section header types.
    public func rendererIdentity(forHeaderType type: String) -> String? {
        catalog.definition(forSectionType: type)?.rendererIdentity ?? plugins.rendererIdentity(forHeaderType: type)
    }

    /// The plugins' description plus `cells` (each definition: file, line, cell, types) and
    /// `cell_refusals` (`file:line: key: problem`).
    public func pluginsDescription() -> JSONObject {
        var members = plugins.pluginsDescription()
        members.append(
            key: "cells",
            value: .array(
                catalog.definitions.map { definition in
                    [
                        "file": .string(definition.file), "line": .number(Double(definition.line)),
                        "cell": .string(definition.cell),
                        "types": .array(
                            definition.itemTypes.filter { catalog.definition(forItemType: $0) != nil }.map(
                                JSONValue.string)),
                        "section_types": .array(definition.sectionTypes.map(JSONValue.string)),
                    ]
                }))
        members.append(key: "cell_refusals", value: .array(catalog.refusals.map { .string($0.description) }))
        return members
    }

    /// How many plugins are loaded (cells are not counted).
    public var pluginCount: Int { plugins.pluginCount }

    /// The plugin hosts.
    public func hostsDescription() -> [JSONValue] { plugins.hostsDescription() }

    /// The plugins in use.
    public var loadedPlugins: [any RegisteredPlugin] { plugins.loadedPlugins }

    /// The refused plugin files.
    public var refusals: [PluginRefusal] { plugins.refusals }

    private static func parse(_ input: [UInt8], what: String) throws(ItemError) -> JSONValue {
        do {
            return try input.withUnsafeBytes { try JSONParser.parse($0) }
        } catch let error as JSONParseError {
            throw .invalidJSON(what, error)
        } catch {
            throw ItemError(code: .invalidInput, message: "\(what) is not valid JSON")
        }
    }

    private static func outcome(_ render: () throws(ItemError) -> [UInt8]) -> RenderOutcome {
        do {
            return .ok(try render())
        } catch {
            return .rejected(message: error.message, field: error.field, code: error.code.rawValue)
        }
    }
}
