import Logging
import RowCastCells
import RowCastPluginHosting
import RowCastWire

/// What one reload reads, once: the configuration, validated, with the settings only a
/// restart applies kept at their running values (each named in the log); with CURVE, the
/// client keys; the plugin files the plugin directories hold; the cell files. One rowcastd
/// reads one for each reload; several engine loops take one together (`SharedReload`) and each
/// applies the same, so a reload is one decision for them all (docs/OPERATIONS.md, "Engine
/// threads").
struct ReloadDecision: Sendable {
    /// What a valid configuration makes the reload apply.
    struct Plan: Sendable {
        /// The configuration to apply.
        let configuration: DaemonConfiguration
        /// The keys of the settings the file changed that only a restart applies.
        let restartRequired: [String]
        /// The client keys, with CURVE on; nil with it off.
        let keyring: ClientKeyring?
        /// The plugin files to load, from one scan of the plugin directories.
        let plugins: PluginScan
        /// The cells of the cell directories.
        let cells: CellCatalog
    }

    /// Which reload this is: one more than the one before.
    let generation: Int
    /// What to apply, or why the reload fails (code `reload_failed`) and everything running stays.
    let plan: Result<Plan, RowCastError>

    /// Reads the configuration again with `environment` (nil keeps `running`), then the client
    /// keys and the plugin and cell directories it names; `running` is the configuration in
    /// force, whose settings that need a restart stay.
    init(generation: Int, running: DaemonConfiguration, environment: DaemonEnvironment, logger: Logger) {
        self.generation = generation
        var next = running
        if let reloadConfiguration = environment.reloadConfiguration {
            do {
                next = try reloadConfiguration()
            } catch {
                plan = .failure(RowCastError(.reloadFailed, "the configuration is not valid: \(error)"))
                return
            }
        }
        var restartRequired: [String] = []
        for setting in ConfigurationSchema.settings
        where !setting.appliesOnReload && setting.read(running) != setting.read(next) {
            restartRequired.append(setting.key)
            logger.warning(
                "this setting changed but only a restart applies it; the running value stays",
                metadata: [
                    "key": "\(setting.key)", "running": "\(setting.read(running))",
                    "configured": "\(setting.read(next))",
                ])
            setting.write(&next, setting.read(running))
        }
        plan = .success(
            Plan(
                configuration: next, restartRequired: restartRequired,
                keyring: next.curve ? Daemon.loadKeyring(next.curveClientsDirectory, logger: logger) : nil,
                plugins: PluginScan(directories: next.pluginDirectories),
                cells: Daemon.loadCells(next.cellDirectories, logger: logger)))
    }
}
