/// What a plugin host's work tells the daemon's metrics: how long each round trip took, and
/// each fault. Called on the loop thread, once per batch round trip or fault (never per item),
/// so an observer may record straight into its metrics.
public struct PluginHostObserver {
    /// A batch of `calls` calls to `plugin` was answered whole after `duration` (from sending it
    /// to its last result, host restarts included).
    public var rendered: (_ plugin: String, _ duration: Duration, _ calls: Int) -> Void
    /// `plugin`'s host faulted: crashed or timed out.
    public var faulted: (_ plugin: String, _ kind: HostFault.Kind) -> Void

    /// An observer calling `rendered` and `faulted`.
    public init(
        rendered: @escaping (String, Duration, Int) -> Void, faulted: @escaping (String, HostFault.Kind) -> Void
    ) {
        self.rendered = rendered
        self.faulted = faulted
    }
}
