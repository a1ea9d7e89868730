import ArgumentParser
import Logging
import RowCastClient
import RowCastEngine
import RowCastPluginHosting
import RowCastSupport

/// How `rowcast plugin check` and `rowcast plugin render` load a plugin file: in a plugin host
/// (rowcastd's default) or in rowcast itself.
struct PluginLoadOptions: ParsableArguments {
    @Flag(help: "Load the plugin into rowcast itself, as rowcastd does with plugin_isolation: in_process.")
    var inProcess = false

    @Option(
        help: ArgumentHelp("The rowcast-plugin-host executable. [default: the one next to rowcast]", valueName: "path"))
    var pluginHost: String?

    @Option(help: ArgumentHelp("How long one plugin call may take in a host, as plugin_timeout_ms.", valueName: "ms"))
    var pluginTimeout = 1000

    /// Loads `file`, or throws what rowcastd would say of it (a refusal, code and reason).
    func load(_ file: String) throws(RowCastClientError) -> StandalonePlugin {
        let logger = Logger(label: "rowcast.plugin") { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .notice  // the plugin's own output, relayed by its host
            return handler
        }
        var settings: PluginHostSettings?
        if !inProcess {
            guard let executable = pluginHost ?? ExecutableLocation.sibling("rowcast-plugin-host") else {
                throw RowCastClientError(
                    code: "host_failed",
                    message: "no rowcast-plugin-host next to rowcast; give one with --plugin-host, or use --in-process")
            }
            settings = PluginHostSettings(executable: executable, callTimeoutMilliseconds: pluginTimeout)
        }
        do {
            return try StandalonePlugin.load(file, hostSettings: settings, logger: logger)
        } catch {
            throw RowCastClientError(code: error.code.rawValue, message: error.description)
        }
    }
}
