import ArgumentParser
import Foundation
import RowCastClient

/// `rowcast plugin new NAME [--c]`: a ready plugin project in a new folder.
struct PluginNewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract:
            "Write a new plugin project in a new folder: a Swift package on the plugin SDK, or with --c a C file, its header and a Makefile.",
        discussion: """
            The plugin renders items of type NAME. Its folder (NAME, or --directory) must not \
            exist. Nothing needs installing first: rowcast finds the plugin SDK itself, in this \
            order: --sdk, the SDK installed beside rowcast (PREFIX/share/rowcast/sdk, from make \
            install or make install-sdk), or the SDK/ folder of the RowCast checkout rowcast was \
            built in. A Swift plugin depends on that SDK package by its path (a local package: \
            swift build resolves it offline) and builds with `swift build -c release`; a C plugin \
            gets a copy of the SDK's rowcast_plugin.h beside NAME.c and builds with `make` (plain \
            cc, no pkg-config). Each comes with item.json, a sample item for `rowcast plugin \
            render`.

            Examples:
              rowcast plugin new article && cd article && swift build -c release
              rowcast plugin render .build/release/librowcast-article.so --item item.json
              rowcast plugin new note --c && cd note && make
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The plugin's name, which is also its item type: lowercase letters, digits and '-', starting with a letter.",
            valueName: "name"))
    var name: String

    @Flag(help: "Write a C plugin (NAME.c, a copy of rowcast_plugin.h and a Makefile) instead of a Swift package.")
    var c = false

    @Option(help: ArgumentHelp("The folder to create. [default: NAME]", valueName: "dir"))
    var directory: String?

    @Option(
        help: ArgumentHelp(
            "The plugin SDK (a checkout's SDK/ folder, or PREFIX/share/rowcast/sdk). [default: the installed one beside rowcast, else the checkout rowcast was built in]",
            valueName: "dir"))
    var sdk: String?

    func validate() throws {
        guard PluginTemplate.isValidName(name) else {
            throw ValidationError(
                "a plugin name holds lowercase letters, digits and '-', and starts with a letter, got \"\(name)\"")
        }
    }

    func run() throws {
        try reportingErrors {
            let folder = directory ?? name
            let kit = try PluginSDK.locate(given: sdk)
            let files: [(path: String, text: String)]
            if c {
                files = PluginTemplate.cFiles(name: name, header: try kit.headerText())
            } else {
                files = PluginTemplate.swiftFiles(name: name, sdk: kit.path)
            }
            try Self.write(files, into: folder)
            Output.line("wrote \(folder)/: " + files.map(\.path).joined(separator: ", "))
            Output.line("plugin SDK: \(kit.path) (\(kit.origin))")
            let library = "librowcast-\(name).so"
            let rowcast = Self.commandName()
            if c {
                Output.line("next: cd \(folder) && make && \(rowcast) plugin render \(library) --item item.json")
            } else {
                Output.line(
                    "next: cd \(folder) && swift build -c release && \(rowcast) plugin render .build/release/\(library) --item item.json"
                )
            }
        }
    }

    /// How to run this rowcast in the next step's command: `rowcast` when the PATH finds this
    /// very executable, else its full path (a checkout's `.build/debug/rowcast`, say).
    static func commandName() -> String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = String(directory) + "/rowcast"
            guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
            return URL(fileURLWithPath: candidate).resolvingSymlinksInPath().path == executable ? "rowcast" : executable
        }
        return executable
    }

    /// `path` made absolute, with `.` and `..` components resolved.
    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parts: [Substring] = []
        for part in full.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Creates `folder` (which must not exist) and writes `files` into it.
    static func write(_ files: [(path: String, text: String)], into folder: String) throws(RowCastClientError) {
        let manager = FileManager.default
        guard !manager.fileExists(atPath: folder) else {
            throw RowCastClientError(
                code: "invalid_request", message: "\(folder) already exists; choose another name or --directory")
        }
        do {
            for file in files {
                let path = folder + "/" + file.path
                try manager.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(file.text.utf8).write(to: URL(fileURLWithPath: path))
            }
        } catch {
            throw RowCastClientError(
                code: "invalid_request", message: "cannot write \(folder): \(error.localizedDescription)")
        }
    }
}
