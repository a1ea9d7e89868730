import ArgumentParser

/// `rowcast plugin`: write, check and try cell-controller plugins without a daemon.
struct PluginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin",
        abstract: "Start a new plugin, check a plugin file, or render items with it, without a daemon.",
        discussion: """
            These commands load a plugin file the way rowcastd does: a private copy, the trust \
            check on the file, dlopen, the ABI and descriptor checks, and by default a \
            rowcast-plugin-host process (the one next to rowcast), as rowcastd's default \
            plugin_isolation: process. See docs/PLUGINS.md.

            Examples:
              rowcast plugin new article
              rowcast plugin check article/.build/release/librowcast-article.so
              rowcast plugin render librowcast-article.so --item item.json
              cat items.ndjson | rowcast plugin render librowcast-article.so
            """,
        subcommands: [PluginNewCommand.self, PluginCheckCommand.self, PluginRenderCommand.self]
    )
}
