import Logging
import RowCastJSON
import RowCastWire

/// The renderer of `plugin_isolation: process`: routes each type to the plugin that claims it,
/// and runs every call in that plugin's host, a batch per plugin per round trip.
///
/// Not `Sendable`: the loop thread alone calls it.
public final class HostedRenderer: RowRendering {
    /// The frozen routing table.
    public let registry: PluginTable<HostedPlugin>

    /// A renderer over `registry`.
    public init(registry: PluginTable<HostedPlugin>) { self.registry = registry }

    /// Scans `directories` and starts a host per plugin file. A plugin of `previous` whose
    /// file is unchanged keeps its host; a changed file gets a new host (the old one keeps
    /// serving until ``retire(replacedBy:)``); a refused file keeps its previous version.
    public static func load(
        directories: [String], settings: PluginHostSettings, logger: Logger, previous: HostedRenderer? = nil
    ) -> HostedRenderer {
        load(scan: PluginScan(directories: directories), settings: settings, logger: logger, previous: previous)
    }

    /// As ``load(directories:settings:logger:previous:)``, for the plugin files `scan` found.
    public static func load(
        scan: PluginScan, settings: PluginHostSettings, logger: Logger, previous: HostedRenderer? = nil
    ) -> HostedRenderer {
        let registry = PluginLoader.build(scan: scan, previous: previous?.registry, logger: logger) {
            file, candidate throws(PluginRefusal) in
            if let candidate, candidate.fileIdentity == PluginFileIdentity.of(file) { return candidate }
            return try HostedPlugin.start(file, settings: settings, logger: logger)
        }
        // Hosts started for plugins the table refused (a duplicate name or type) are not kept.
        return HostedRenderer(registry: registry)
    }

    /// Stops the hosts of plugins that `next` no longer uses.
    public func retire(replacedBy next: HostedRenderer?) {
        let kept = Set((next?.registry.plugins ?? []).map(ObjectIdentifier.init))
        for plugin in registry.plugins where !kept.contains(ObjectIdentifier(plugin)) { plugin.retire() }
    }

    /// Renders an item with the plugin registered for its type.
    public func renderItem(type: String, input: [UInt8]) -> RenderOutcome {
        render([RenderJob(kind: .renderItem, type: type, input: input)])[0]
    }

    /// Renders a section header with the plugin registered for its type.
    public func renderHeader(type: String, input: [UInt8]) -> RenderOutcome {
        render([RenderJob(kind: .renderHeader, type: type, input: input)])[0]
    }

    /// Runs the action handler of the plugin registered for the item type.
    public func select(type: String, input: [UInt8]) -> RenderOutcome {
        render([RenderJob(kind: .select, type: type, input: input)])[0]
    }

    /// Runs the action handler of the plugin registered for the item type, for its change too.
    public func act(type: String, input: [UInt8]) -> RenderOutcome {
        render([RenderJob(kind: .action, type: type, input: input)])[0]
    }

    /// Runs `jobs`: one round trip per plugin involved.
    public func render(_ jobs: [RenderJob]) -> [RenderOutcome] {
        let stream = startRendering(jobs)
        return jobs.indices.map(stream.outcome(at:))
    }

    /// Sends `jobs` to their plugins' hosts, a batch per plugin, all before waiting for any, so
    /// the hosts work side by side; their outcomes are read as they are asked for.
    public func startRendering(_ jobs: [RenderJob]) -> any RenderStream {
        var places = [HostedRenderStream.Place](repeating: .none, count: jobs.count)
        var groups: [(plugin: HostedPlugin, calls: [HostCall])] = []
        var groupOf: [ObjectIdentifier: Int] = [:]
        // A batch is mostly runs of one type: the previous job's group serves the next job of
        // the same kind and type without looking the type up and its plugin's group again.
        var previous: (kind: PluginCallKind, type: String, group: Int)?
        for (index, job) in jobs.enumerated() {
            let group: Int
            if let previous, previous.kind == job.kind, previous.type == job.type {
                group = previous.group
            } else {
                guard let plugin = plugin(for: job) else { continue }
                group =
                    groupOf[ObjectIdentifier(plugin)]
                    ?? {
                        groups.append((plugin, []))
                        groupOf[ObjectIdentifier(plugin)] = groups.count - 1
                        return groups.count - 1
                    }()
                previous = (job.kind, job.type, group)
            }
            places[index] = HostedRenderStream.Place(group: Int32(group), call: Int32(groups[group].calls.count))
            groups[group].calls.append(HostCall(kind: job.kind, input: job.input))
        }
        let batches = groups.map { (plugin: $0.plugin, batch: $0.plugin.start($0.calls)) }
        return HostedRenderStream(kinds: jobs.map(\.kind), places: places, batches: batches)
    }

    /// Whether `render(_:)` should get whole batches: yes, one round trip each.
    public var rendersInBatches: Bool { true }

    /// Plugin name, version, file and the file's identity.
    public func rendererIdentity(forItemType type: String) -> String? {
        registry.plugin(forItemType: type)?.rendererIdentity
    }

    /// As `rendererIdentity(forItemType:)`, for section header types.
    public func rendererIdentity(forHeaderType type: String) -> String? {
        registry.plugin(forHeaderType: type)?.rendererIdentity
    }

    /// `plugins`, `types` and `refusals`.
    public func pluginsDescription() -> JSONObject { registry.pluginsDescription() }

    /// One entry per host.
    public func hostsDescription() -> [JSONValue] { registry.plugins.map(\.hostDescription) }

    /// The plugins in use.
    public var loadedPlugins: [any RegisteredPlugin] { registry.plugins }

    /// What was refused.
    public var refusals: [PluginRefusal] { registry.refusals }

    /// Stops every host (rowcastd is stopping): each is asked to exit, and killed if it has
    /// not within a second.
    public func stopHosts() {
        retire(replacedBy: nil)
        HostReaper.shared.reapAll(within: 1000)
    }

    /// How many plugins are loaded.
    public var pluginCount: Int { registry.plugins.count }

    private func plugin(for job: RenderJob) -> HostedPlugin? {
        switch job.kind {
        case .renderItem:
            return registry.plugin(forItemType: job.type)
        case .renderHeader:
            return registry.plugin(forHeaderType: job.type).flatMap { $0.rendersHeaders ? $0 : nil }
        case .select, .action:
            return registry.plugin(forItemType: job.type).flatMap { $0.handlesSelect ? $0 : nil }
        }
    }

    static func outcome(
        _ result: Result<HostCallResult, HostFault>, kind: PluginCallKind, plugin: HostedPlugin
    ) -> RenderOutcome {
        switch result {
        case .failure(let fault):
            let code: ErrorCode =
                switch fault.kind {
                case .crashed: .pluginCrashed
                case .timeout: .pluginTimeout
                case .unavailable: .pluginUnavailable
                }
            return .faulted(PluginFaultReport(code: code, reason: fault.reason, plugin: plugin.name, file: plugin.file))
        case .success(let raw):
            if raw.unsupported {
                return RenderOutcome(PluginCallResult.failed(PluginOutput.unsupported(kind, plugin: plugin.name)))
            }
            let expectation: PluginOutput.Expectation
            switch kind {
            case .select: expectation = .event
            case .action: expectation = .actionResult
            case .renderItem, .renderHeader: expectation = .unchecked  // RowAssembler checks rows
            }
            return RenderOutcome(
                PluginOutput.result(
                    status: raw.status, output: raw.output, overflowed: raw.overflowed, expecting: expectation,
                    plugin: plugin.name))
        }
    }
}

@available(*, unavailable)
extension HostedRenderer: Sendable {}
