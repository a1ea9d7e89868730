import RowCastPluginHosting

/// Wiring the metrics to what reports them.
extension Daemon {
    /// Points every plugin host of `renderer` at the metrics (round trips, faults). In-process
    /// plugins have no hosts; their calls are not timed.
    func observePlugins(of renderer: any RowRendering) {
        guard let hosted = Self.pluginRenderer(of: renderer) as? HostedRenderer else { return }
        let observer = metrics?.pluginObserver
        for plugin in hosted.registry.plugins { plugin.observer = observer }
    }
}
