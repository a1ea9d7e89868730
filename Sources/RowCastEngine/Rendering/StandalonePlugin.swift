import Logging
import RowCastJSON
import RowCastPluginHosting
import RowCastWire

/// One plugin file loaded as rowcastd loads it, without a daemon: for `rowcast plugin check`
/// and `rowcast plugin render`.
///
/// The file goes through the daemon's own steps: the private copy and its trust check, then
/// in a `rowcast-plugin-host` (``load(_:hostSettings:logger:)`` with settings) or in this
/// process (without), `dlopen`, the entry symbol, and the ABI and descriptor checks. Items
/// are validated as a publish request's are and rendered through the engine's own path, so a
/// row or an error here is the one a subscriber or a publisher would get.
///
/// Not `Sendable`: the loaded plugin belongs to the thread that renders.
public final class StandalonePlugin {
    /// The loaded plugin: name, version, file and types.
    public let plugin: any RegisteredPlugin
    /// Whether the plugin handles select actions.
    public let handlesSelect: Bool
    /// Whether it runs in a plugin host (false: in this process).
    public let isHosted: Bool

    private let engine: Engine
    private let hosted: HostedRenderer?

    private init(plugin: any RegisteredPlugin, handlesSelect: Bool, renderer: any RowRendering, hosted: HostedRenderer?)
    {
        self.plugin = plugin
        self.handlesSelect = handlesSelect
        self.isHosted = hosted != nil
        self.hosted = hosted
        // The engine's own messages (the failures it logs) are the errors returned here.
        var quiet = Logger(label: "rowcast.render")
        quiet.logLevel = .critical
        engine = Engine(renderer: renderer, logger: quiet)
    }

    deinit { hosted?.stopHosts() }

    /// Loads `file`: in a plugin host started with `hostSettings` (`plugin_isolation:
    /// process`, rowcastd's default), or into this process when `hostSettings` is nil
    /// (`in_process`). A file rowcastd would refuse throws the refusal rowcastd would log.
    public static func load(
        _ file: String, hostSettings: PluginHostSettings?, logger: Logger
    ) throws(PluginRefusal) -> StandalonePlugin {
        guard let hostSettings else {
            let plugin = try PluginLoader(logger: logger).loadPlugin(file)
            var builder = PluginRegistry.Builder()
            builder.add(plugin)
            return StandalonePlugin(
                plugin: plugin, handlesSelect: plugin.handlesSelect,
                renderer: PluginRenderer(registry: builder.build()), hosted: nil)
        }
        let plugin = try HostedPlugin.start(file, settings: hostSettings, logger: logger)
        var builder = PluginTable<HostedPlugin>.Builder()
        builder.add(plugin)
        let renderer = HostedRenderer(registry: builder.build())
        return StandalonePlugin(
            plugin: plugin, handlesSelect: plugin.handlesSelect, renderer: renderer, hosted: renderer)
    }

    /// Why rowcastd would not pick `file` up from a plugin directory, or nil when its name
    /// fits (``PluginLoader/fileNamePattern``).
    public static func fileNameProblem(_ file: String) -> String? {
        let name = file.split(separator: "/").last.map(String.init) ?? file
        if PluginLoader.isPluginFileName(name) { return nil }
        return
            "rowcastd loads only files named \(PluginLoader.fileNamePattern) from its plugin directories; rename \(name) (e.g. librowcast-\(name.hasPrefix("lib") ? String(name.dropFirst(3)) : name))"
    }

    /// Renders the item `json` (an item object as a publisher sends it) into the row a
    /// subscriber gets, `{"id","type","cell","height",...}`, or the error the publisher would
    /// get: the item is validated first, then rendered, and the plugin's output checked.
    /// `context` names the item in messages where it has no id yet (`item 3`).
    public func renderItem(_ json: [UInt8], context: String) -> Result<RenderedRow, RowCastError> {
        do throws(RowCastError) {
            let item = try RequestDecoder.item(json: json, context: context)
            guard let row = try engine.renderItem(item, feed: Self.feed) else {
                throw RowCastError(
                    .unknownType,
                    "item \"\(item.id)\" (type \(item.type)): plugin \(plugin.name) renders no item type \"\(item.type)\" (only \(plugin.itemTypes.joined(separator: ", ")))",
                    field: "type", id: item.id)
            }
            return .success(row)
        } catch {
            return .failure(error)
        }
    }

    /// Renders the header row of the section `json` (`{"id","type","order"?,"header"?}`, as a
    /// `section` request declares it): the section's `headerRow` in snapshots and deltas, or
    /// the error the publisher would get.
    public func renderHeader(_ json: [UInt8], context: String) -> Result<[UInt8], RowCastError> {
        do throws(RowCastError) {
            let value: JSONValue
            do { value = try JSONParser.parse(json) } catch { throw RowCastError(.invalidJSON, "\(context): \(error)") }
            guard let object = value.objectValue else {
                throw RowCastError(
                    .invalidRequest, "\(context): a section must be a JSON object, got \(value.kindName)")
            }
            let section = try RequestDecoder.section(object, path: "section.", context: context)
            guard let type = section.type else {
                throw RowCastError(
                    .missingField, "section \"\(section.id)\" has no type, so no plugin renders its header",
                    field: "section.type", id: section.id)
            }
            guard let row = try engine.renderHeader(section, feed: Self.feed) else {
                let renders =
                    plugin.headerTypes.isEmpty
                    ? "it renders no headers" : "only " + plugin.headerTypes.joined(separator: ", ")
                throw RowCastError(
                    .unknownType,
                    "section \"\(section.id)\" (type \(type)): plugin \(plugin.name) renders no section type \"\(type)\" (\(renders))",
                    field: "section.type", id: section.id)
            }
            return .success(row)
        } catch {
            return .failure(error)
        }
    }

    /// `{"name","version","file","itemTypes","headerTypes","select","isolation"}`.
    public var json: JSONValue {
        [
            "name": .string(plugin.name), "version": .string(plugin.version), "file": .string(plugin.file),
            "itemTypes": .array(plugin.itemTypes.map(JSONValue.string)),
            "headerTypes": .array(plugin.headerTypes.map(JSONValue.string)),
            "select": .bool(handlesSelect),
            "isolation": .string(isHosted ? "process" : "in_process"),
        ]
    }

    /// The feed named in errors: items rendered here belong to none.
    static let feed = "(render)"
}

@available(*, unavailable)
extension StandalonePlugin: Sendable {}
