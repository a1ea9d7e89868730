import ArgumentParser
import Foundation
import RowCastClient
import RowCastSupport

/// `rowcast plugin new NAME [--c]`: a ready plugin project in a new folder.
struct PluginNewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract:
            "Write a new plugin project in a new folder: a Swift package on the installed SDK, or with --c a C file and a Makefile.",
        discussion: """
            The plugin renders items of type NAME. Its folder (NAME, or --directory) must not \
            exist. A Swift plugin depends on the installed SDK alone (PREFIX/share/rowcast/sdk, \
            found next to rowcast, or --sdk) and builds with `swift build -c release`; a C \
            plugin builds with `make`, which takes the header from `pkg-config --cflags \
            rowcast-plugin`. Each comes with item.json, a sample item for `rowcast plugin render`.

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

    @Flag(help: "Write a C plugin (NAME.c and a Makefile) instead of a Swift package.")
    var c = false

    @Option(help: ArgumentHelp("The folder to create. [default: NAME]", valueName: "dir"))
    var directory: String?

    @Option(
        help: ArgumentHelp(
            "The installed plugin SDK a Swift plugin depends on. [default: ../share/rowcast/sdk next to rowcast's directory]",
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
            let files: [(path: String, text: String)]
            if c {
                files = PluginTemplate.cFiles(name: name)
            } else {
                files = PluginTemplate.swiftFiles(name: name, sdk: try sdkPath())
            }
            try Self.write(files, into: folder)
            Output.line("wrote \(folder)/: " + files.map(\.path).joined(separator: ", "))
            let library = "librowcast-\(name).so"
            if c {
                Output.line("next: cd \(folder) && make && rowcast plugin render \(library) --item item.json")
            } else {
                Output.line(
                    "next: cd \(folder) && swift build -c release && rowcast plugin render .build/release/\(library) --item item.json"
                )
            }
        }
    }

    /// The SDK package's directory: --sdk, or the one installed beside rowcast.
    func sdkPath() throws(RowCastClientError) -> String {
        let candidate = sdk ?? ExecutableLocation.directory().map { Self.absolute($0 + "/../share/rowcast/sdk") }
        guard let candidate, FileManager.default.fileExists(atPath: candidate + "/Package.swift") else {
            throw RowCastClientError(
                code: "invalid_request",
                message:
                    "no plugin SDK at \(candidate ?? "../share/rowcast/sdk"); install it (make install, or make install-sdk) or give its directory with --sdk (`pkg-config --variable=sdkdir rowcast-plugin`)"
            )
        }
        return Self.absolute(candidate)
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
