import RowCastJSON

/// Where the engine gets rows from: in the daemon, the plugin registry; in tests, a fake.
/// Calls come from the engine's one thread.
public protocol RowRendering {
    /// Renders an item (its JSON as published, `ItemInput.json`) of type `type`.
    func renderItem(type: String, input: [UInt8]) -> RenderOutcome
    /// Renders the header row of a section of type `type` (input `{"id","type","order","header"}`).
    func renderHeader(type: String, input: [UInt8]) -> RenderOutcome
    /// Runs the action handler of the plugin that renders `type`.
    func select(type: String, input: [UInt8]) -> RenderOutcome
    /// Runs the action handler of the plugin that renders `type` for its event and change:
    /// `.ok` holds `{"event"?, "update"? | "delete"?}` (see ``ActionResult``).
    func act(type: String, input: [UInt8]) -> RenderOutcome
    /// Names the renderer of an item type, so a reload can tell which types changed hands
    /// (nil when no renderer handles the type).
    func rendererIdentity(forItemType type: String) -> String?
    /// Names the renderer of a section type (nil when none).
    func rendererIdentity(forHeaderType type: String) -> String?
    /// The `plugins` reply body members: `plugins`, `types`, `refusals`.
    func pluginsDescription() -> JSONObject
    /// How many plugins are loaded.
    var pluginCount: Int { get }
    /// Runs `jobs`, one outcome per job in order (see the default in the extension).
    func render(_ jobs: [RenderJob]) -> [RenderOutcome]
    /// Starts `jobs` and returns their outcomes as they arrive (by default: `render(_:)`).
    func startRendering(_ jobs: [RenderJob]) -> any RenderStream
    /// Whether the engine should gather a batch's jobs for `render(_:)`.
    var rendersInBatches: Bool { get }
    /// The plugin hosts, as the `plugins` reply lists them.
    func hostsDescription() -> [JSONValue]
    /// The plugins in use, in load order.
    var loadedPlugins: [any RegisteredPlugin] { get }
    /// The plugin files and directories that were refused.
    var refusals: [PluginRefusal] { get }
}

extension RowRendering {
    /// Runs `jobs` and returns one outcome per job, in order. Renderers whose calls cross a
    /// process boundary answer a whole batch in one round trip; this default calls one by one.
    public func render(_ jobs: [RenderJob]) -> [RenderOutcome] {
        jobs.map { job in
            switch job.kind {
            case .renderItem: renderItem(type: job.type, input: job.input)
            case .renderHeader: renderHeader(type: job.type, input: job.input)
            case .select: select(type: job.type, input: job.input)
            case .action: act(type: job.type, input: job.input)
            }
        }
    }

    /// `select`'s event as an action result with no change (renderers without changes).
    public func act(type: String, input: [UInt8]) -> RenderOutcome {
        let outcome = select(type: type, input: input)
        guard case .ok(let output) = outcome else { return outcome }
        return .ok(Array("{\"event\":".utf8) + output + [UInt8(ascii: "}")])
    }

    /// `render(_:)`, all at once.
    public func startRendering(_ jobs: [RenderJob]) -> any RenderStream {
        RenderedOutcomes(render(jobs))
    }

    /// Whether `render(_:)` is cheaper per job than single calls, so the engine should gather
    /// a batch's jobs first.
    public var rendersInBatches: Bool { false }

    /// The plugin hosts, for `plugins` and `status` (none when plugins run in rowcastd).
    public func hostsDescription() -> [JSONValue] { [] }

    /// No plugins (a renderer without a registry).
    public var loadedPlugins: [any RegisteredPlugin] { [] }

    /// No refusals (a renderer without a registry).
    public var refusals: [PluginRefusal] { [] }
}
