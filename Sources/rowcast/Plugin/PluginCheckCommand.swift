import ArgumentParser
import RowCastClient
import RowCastEngine
import RowCastJSON

/// `rowcast plugin check FILE`: what rowcastd's loader would say of a plugin file.
struct PluginCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Load a plugin file as rowcastd does and say what its loader would: the plugin and its types, or why it is refused.",
        discussion: """
            Exit status 0 when rowcastd would load the file, 1 when it would refuse it (the \
            refusal's code and reason are printed as rowcastd logs them). A file name that \
            rowcastd would not pick up from a plugin directory (not librowcast-*.so) is noted.
            """
    )

    @Argument(help: ArgumentHelp("The plugin file (a shared library).", valueName: "file"))
    var file: String

    @OptionGroup var loading: PluginLoadOptions

    @Flag(
        help:
            "Print the result as one line of JSON: {\"ok\":true,\"plugin\":{...}} or {\"ok\":false,\"refusal\":{...}}.")
    var json = false

    func run() throws {
        let plugin: StandalonePlugin
        do {
            plugin = try loading.load(file)
        } catch {
            if json {
                Output.json([
                    "ok": false,
                    "refusal": ["file": .string(file), "code": .string(error.code), "reason": .string(error.message)],
                ])
                throw ExitCode.failure
            }
            Output.error(error)
            throw ExitCode.failure
        }
        let nameProblem = StandalonePlugin.fileNameProblem(file)
        if json {
            var object: JSONObject = ["ok": true, "plugin": plugin.json]
            if let nameProblem { object.append(key: "note", value: .string(nameProblem)) }
            return Output.json(.object(object))
        }
        let info = plugin.plugin
        Output.line("ok: plugin \(info.name) \(info.version) from \(info.file)")
        Output.line("  item types:   \(info.itemTypes.joined(separator: ", "))")
        Output.line("  header types: \(info.headerTypes.isEmpty ? "(none)" : info.headerTypes.joined(separator: ", "))")
        Output.line("  select:       \(plugin.handlesSelect ? "yes" : "no")")
        Output.line(
            "  loaded:       \(plugin.isHosted ? "in a rowcast-plugin-host process (plugin_isolation: process)" : "in this process (plugin_isolation: in_process)")"
        )
        if let nameProblem { Output.note(nameProblem) }
    }
}
