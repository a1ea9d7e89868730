import RowCastCore
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
    private let now: () -> Double

    /// A renderer of `catalog`'s cells over `plugins`.
    public init(catalog: CellCatalog, plugins: any RowRendering, now: @escaping () -> Double = DeclarativeRenderer.wallClock) {
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
        guard let definition = catalog.definition(forItemType: type) else { return plugins.renderItem(type: type, input: input) }
        return renderItem(input, with: definition)
    }

    private func renderItem(_ input: [UInt8], with definition: CellDefinition) -> RenderOutcome {
        Self.outcome { () throws(ItemError) -> [UInt8] in
            let item = try Item(json: try Self.parse(input, what: "the item"))
            return try definition.rowBytes(fields: item.data, id: item.id, type: item.type, section: item.section, now: now())
        }
    }

    /// Renders a section header: with its cell when the catalog has one, else with a plugin.
    public func renderHeader(type: String, input: [UInt8]) -> RenderOutcome {
        guard let definition = catalog.definition(forSectionType: type) else { return plugins.renderHeader(type: type, input: input) }
        return renderHeader(input, with: definition)
    }

    private func renderHeader(_ input: [UInt8], with definition: CellDefinition) -> RenderOutcome {
        Self.outcome { () throws(ItemError) -> [UInt8] in
            let header = try SectionHeader(json: try Self.parse(input, what: "the section"))
            return try definition.rowBytes(fields: header.header, id: header.id, type: header.type, section: nil, now: now())
        }
    }

    /// Runs an action of a declarative cell (the action must be one the cell offers; it
    /// publishes no event of its own), or the plugin's handler.
    public func select(type: String, input: [UInt8]) -> RenderOutcome {
        guard let definition = catalog.definition(forItemType: type) else { return plugins.select(type: type, input: input) }
        let action: String?
        do {
            action = try Self.parse(input, what: "the select request")["action"]?.stringValue
        } catch {
            return .rejected(message: error.message, field: error.field, code: error.code.rawValue)
        }
        guard let action, definition.actions.contains(where: { $0.name == action }) else {
            let error = ItemError.unknownAction(action ?? "")
            return .rejected(message: error.message, field: error.field, code: error.code.rawValue)
        }
        return .ok(Array("null".utf8))
    }

    /// Renders `jobs`: the cells' own at once, the rest through the plugins' renderer in one go.
    public func render(_ jobs: [RenderJob]) -> [RenderOutcome] {
        let stream = startRendering(jobs)
        return jobs.indices.map(stream.outcome(at:))
    }

    /// Starts `jobs`: the plugins' share goes out first (their hosts work meanwhile), then the
    /// cells' rows are rendered here.
    public func startRendering(_ jobs: [RenderJob]) -> any RenderStream {
        var pluginJobs: [RenderJob] = []
        var pluginIndex = [Int?](repeating: nil, count: jobs.count)
        var definitions = [CellDefinition?](repeating: nil, count: jobs.count)
        for (index, job) in jobs.enumerated() {
            definitions[index] = job.kind == .renderHeader ? catalog.definition(forSectionType: job.type) : catalog.definition(forItemType: job.type)
            if definitions[index] == nil {
                pluginIndex[index] = pluginJobs.count
                pluginJobs.append(job)
            }
        }
        let pluginStream = pluginJobs.isEmpty ? nil : plugins.startRendering(pluginJobs)
        var local = [RenderOutcome?](repeating: nil, count: jobs.count)
        for (index, job) in jobs.enumerated() {
            guard let definition = definitions[index] else { continue }
            switch job.kind {
            case .renderItem: local[index] = renderItem(job.input, with: definition)
            case .renderHeader: local[index] = renderHeader(job.input, with: definition)
            case .select: local[index] = select(type: job.type, input: job.input)
            }
        }
        return MergedRenderStream(local: local, pluginIndex: pluginIndex, plugins: pluginStream)
    }

    /// Whether the plugins' renderer wants whole batches.
    public var rendersInBatches: Bool { plugins.rendersInBatches }

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
        members.append(key: "cells", value: .array(catalog.definitions.map { definition in
            [
                "file": .string(definition.file), "line": .number(Double(definition.line)), "cell": .string(definition.cell),
                "types": .array(definition.itemTypes.filter { catalog.definition(forItemType: $0) != nil }.map(JSONValue.string)),
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

/// Outcomes of a batch split between the cells (known at once) and the plugins (a stream).
final class MergedRenderStream: RenderStream {
    private let local: [RenderOutcome?]
    private let pluginIndex: [Int?]
    private let plugins: (any RenderStream)?

    init(local: [RenderOutcome?], pluginIndex: [Int?], plugins: (any RenderStream)?) {
        self.local = local
        self.pluginIndex = pluginIndex
        self.plugins = plugins
    }

    func outcome(at index: Int) -> RenderOutcome {
        if let pluginIndex = pluginIndex[index], let plugins { return plugins.outcome(at: pluginIndex) }
        return local[index] ?? .noRenderer
    }

    func finish() { plugins?.finish() }
}
