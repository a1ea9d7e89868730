import CRowCastPlugin

/// A plugin library that passed every check, ready to render: its name, version, file, types,
/// and the calls over the C ABI.
///
/// Not `Sendable`: the ABI promises a plugin is called from one thread at a time, so a loaded
/// plugin belongs to the thread that renders. It is never unloaded (see ``PluginLoader``).
public final class LoadedPlugin {
    /// The most output one call may write; more is a failure, not an allocation spiral.
    public static let maximumOutputSize = 16 << 20

    /// The plugin's name, e.g. `product`.
    public let name: String
    /// The plugin's version, e.g. `1.0.0`.
    public let version: String
    /// The plugin file's path as found in its directory.
    public let file: String
    /// The item types it renders.
    public let itemTypes: [String]
    /// The section types whose headers it renders (often none).
    public let headerTypes: [String]
    /// The identity of the file when it was loaded; a reload reuses this plugin only when
    /// the file's identity is still the same.
    public let fileIdentity: PluginFileIdentity
    /// Name, version, file and the file's identity, as ``RegisteredPlugin`` asks.
    public let rendererIdentity: String
    /// The path `dlopen` was given: the private copy of the file (see ``PluginImage``).
    public let loadedFrom: String

    private let library: PluginLibrary
    private let descriptor: UnsafePointer<rowcast_plugin>
    private let context: UnsafeMutableRawPointer?
    private let renderItemFunction: rowcast_render_fn
    private let renderHeaderFunction: rowcast_render_fn?
    private let selectFunction: rowcast_select_fn?
    private let actionFunction: rowcast_action_fn?
    /// The ABI revision the plugin was built for: 1, or 2 when its descriptor has `handle_action`.
    public let abiRevision: Int

    init(file: String, identity: PluginFileIdentity, library: PluginLibrary, info: PluginDescriptorInfo) {
        self.file = file
        self.fileIdentity = identity
        self.library = library
        self.loadedFrom = library.image.loadPath
        self.descriptor = info.descriptor
        self.name = info.name
        self.version = info.version
        self.itemTypes = info.itemTypes
        self.headerTypes = info.headerTypes
        let plugin = info.plugin
        self.context = plugin.context
        self.renderItemFunction = plugin.render_item!  // checked by PluginDescriptorReader
        self.renderHeaderFunction = info.headerTypes.isEmpty ? nil : plugin.render_header
        self.selectFunction = plugin.select
        self.actionFunction = plugin.handle_action
        self.abiRevision = info.revision
        self.rendererIdentity = identity.rendererIdentity(name: info.name, version: info.version, file: file)
    }

    /// Whether the plugin handles select requests (with `select` or `handle_action`).
    public var handlesSelect: Bool { selectFunction != nil || actionFunction != nil }

    /// Whether the plugin's action handler may return changes (`handle_action`, revision 2).
    public var returnsChanges: Bool { actionFunction != nil }

    /// Whether the plugin renders section headers.
    public var rendersHeaders: Bool { renderHeaderFunction != nil }

    /// Renders an item, given as its JSON `{"id","type","section","sort","data"}`, into a row.
    /// - Parameter checkingOutput: whether to check that the output is a valid row; a caller
    ///   that checks it itself (the engine's `RowAssembler`) passes false to parse it once.
    public func renderItem(_ json: [UInt8], checkingOutput: Bool = true) -> PluginCallResult {
        call(.renderItem, json, expecting: checkingOutput ? .row : .unchecked)
    }

    /// Renders a section header, given as `{"id","type","order","header"}`, into a row.
    /// - Parameter checkingOutput: as for `renderItem`.
    public func renderHeader(_ json: [UInt8], checkingOutput: Bool = true) -> PluginCallResult {
        call(.renderHeader, json, expecting: checkingOutput ? .row : .unchecked)
    }

    /// Handles a select request `{"feed","id","action","item"}`; `.ok` holds the event object,
    /// or `null` when the action publishes no event.
    public func select(_ json: [UInt8]) -> PluginCallResult {
        call(.select, json, expecting: .event)
    }

    /// Handles an action request `{"feed","id","action","value"?,"requester","item"}`; `.ok`
    /// holds `{"event":...,"update"|"delete":...}` (see ``rawCall(_:_:)`` for a revision 1
    /// plugin's `select`, whose event is wrapped so).
    public func handleAction(_ json: [UInt8]) -> PluginCallResult {
        call(.action, json, expecting: .actionResult)
    }

    /// Calls one of the plugin's functions as it is: the status it returned, its output, and
    /// whether it tried to write more than ``maximumOutputSize`` (then `output` is cut short).
    /// `nil` when the plugin does not implement the call.
    public func rawCall(_ kind: PluginCallKind, _ input: [UInt8]) -> (status: Int32, output: [UInt8], overflowed: Bool)?
    {
        var output: [UInt8] = []
        guard let raw = input.withUnsafeBytes({ rawCall(kind, $0, appendingTo: &output) }) else { return nil }
        return (raw.status, output, raw.overflowed)
    }

    /// Calls one of the plugin's functions as it is, its output appended to `output` (a plugin
    /// host writes it straight into the results frame, with no array per call): the status
    /// it returned, and whether it tried to write more than ``maximumOutputSize`` (then what it
    /// appended is cut short). `nil`, with nothing appended, when the plugin does not implement
    /// the call. A plugin host uses this and leaves the checks to rowcastd.
    public func rawCall(
        _ kind: PluginCallKind, _ input: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]
    ) -> (status: Int32, overflowed: Bool)? {
        let function: rowcast_render_fn
        switch kind {
        case .renderItem: function = renderItemFunction
        case .renderHeader:
            guard let renderHeaderFunction else { return nil }
            function = renderHeaderFunction
        case .select:
            guard let selectFunction else { return nil }
            function = selectFunction
        case .action:
            if let actionFunction {
                function = actionFunction
            } else if let selectFunction {
                // A revision 1 plugin: its select's event becomes {"event": ...}, with no change.
                let start = output.count
                output.append(contentsOf: Self.eventPrefix)
                let raw = invoke(selectFunction, input, appendingTo: &output)
                if raw.status == Int32(ROWCAST_OK.rawValue), !raw.overflowed {
                    output.append(UInt8(ascii: "}"))
                } else {
                    output.removeSubrange(start..<(start + Self.eventPrefix.count))
                }
                return raw
            } else {
                return nil
            }
        }
        return invoke(function, input, appendingTo: &output)
    }

    /// What a revision 1 plugin's select event is wrapped in for an action call, before it.
    private static let eventPrefix = Array(#"{"event":"#.utf8)

    private func invoke(
        _ function: rowcast_render_fn, _ input: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]
    ) -> (status: Int32, overflowed: Bool) {
        // The buffer is moved into the sink and back, not copied.
        var sink = PluginSink(limit: Self.maximumOutputSize)
        swap(&sink.bytes, &output)
        sink.start = sink.bytes.count
        let status = sink.withSink { sinkPointer in
            function(context, input.baseAddress?.assumingMemoryBound(to: CChar.self), input.count, sinkPointer)
        }
        swap(&sink.bytes, &output)
        return (status, sink.overflowed)
    }

    private func call(
        _ kind: PluginCallKind, _ input: [UInt8], expecting expectation: PluginOutput.Expectation
    ) -> PluginCallResult {
        guard let raw = rawCall(kind, input) else { return .failed(PluginOutput.unsupported(kind, plugin: name)) }
        return PluginOutput.result(
            status: raw.status, output: raw.output, overflowed: raw.overflowed, expecting: expectation, plugin: name)
    }
}

@available(*, unavailable)
extension LoadedPlugin: Sendable {}
