import Foundation
import RowCastTesting
import Testing

/// What an outside plugin author does, from an installed SDK: `make install-sdk` (the SDK part
/// of `make install`) into a temporary prefix, with `rowcast` and `rowcast-plugin-host`
/// beside it in `bin/`; `rowcast plugin new` outside the repository takes that SDK; the build
/// command docs/PLUGINS.md gives; `rowcast plugin check` and `render`; then the plugin in a real
/// rowcastd, a publish, and the row in the snapshot. (The path with no SDK installed, and a
/// Swift plugin's whole build, are PluginNewcomerEndToEndTests.)
@Suite(.serialized)
struct PluginSDKEndToEndTests {
    /// A temporary install: the SDK, its header and .pc, and the CLI and plugin host in bin/.
    final class Install {
        let prefix: TemporaryDirectory
        var rowcast: String { prefix.path + "/bin/rowcast" }

        init() throws {
            prefix = try TemporaryDirectory("rowcast-prefix")
            let make = try PluginSDKEndToEndTests.shell(
                "make -s -C '\(BuildProducts.repositoryRoot.path)' install-sdk PREFIX='\(prefix.path)'", timeout: 60)
            #expect(make.status == 0, "\(make.output)")
            let bin = prefix.path + "/bin"
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            for program in ["rowcast", "rowcast-plugin-host"] {
                try FileManager.default.copyItem(atPath: try BuildProducts.path(program), toPath: bin + "/" + program)
            }
        }

        /// Exports `PKG_CONFIG_PATH` pointing into the prefix (a shell command).
        var pkgConfig: String { "export PKG_CONFIG_PATH='\(prefix.path)/lib/pkgconfig'" }
    }

    /// Runs `command` with /bin/sh, killed after `timeout` seconds.
    static func shell(_ command: String, timeout: TimeInterval = 60) throws -> (status: Int32, output: String) {
        try ProgramRun.run("/bin/sh", ["-c", command], timeout: timeout)
    }

    /// Starts a rowcastd that loads `library` (copied into its plugin directory, mode 0644),
    /// publishes `fields` as item `id` of `type`, and returns the snapshot's JSON.
    static func publishThroughDaemon(library: String, type: String, id: String, fields: [String]) throws -> String {
        let plugins = try TemporaryDirectory("rowcast-plugins")
        let installed = plugins.path + "/" + (library as NSString).lastPathComponent
        try FileManager.default.copyItem(atPath: library, toPath: installed)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: installed)
        let daemon = try DaemonProcess(pluginDirectory: plugins)
        defer { daemon.stop() }
        let publish = try CommandRunner.run(
            ["publish", "--control", daemon.control, "--feed", "news", "--type", type, "--id", id]
                + fields.flatMap { ["--field", $0] })
        #expect(publish.process.terminationStatus == 0, "\(publish.stderr)")
        let snapshot = try CommandRunner.run(["snapshot", "--control", daemon.control, "--feed", "news", "--json"])
        #expect(snapshot.process.terminationStatus == 0, "\(snapshot.stderr)")
        return snapshot.stdout
    }

    /// Removes the lock files SwiftPM leaves in the temporary directory for a package built in
    /// it (`_tmp_..._article_.build.lock`).
    static func removeBuildLocks(of folder: String) {
        let temporary = FileManager.default.temporaryDirectory.path
        let prefix = folder.replacingOccurrences(of: "/", with: "_") + "_"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] where name.hasPrefix(prefix)
        {
            try? FileManager.default.removeItem(atPath: temporary + "/" + name)
        }
    }

    @Test(
        "a C plugin: rowcast plugin new --c, the docs' cc line with pkg-config, check, render, and its row from rowcastd"
    )
    func cPlugin() throws {
        let install = try Install()
        let outside = try TemporaryDirectory("rowcast-author")
        let folder = outside.path + "/note"
        let new = try Self.shell("cd '\(outside.path)' && '\(install.rowcast)' plugin new note --c")
        #expect(new.status == 0, "\(new.output)")
        #expect(new.output.contains("wrote note/"), "\(new.output)")
        #expect(
            new.output.contains("plugin SDK: \(install.prefix.path)/share/rowcast/sdk (installed beside rowcast)"),
            "\(new.output)")

        // The line docs/PLUGINS.md gives for the installed header, and the generated Makefile
        // (plain cc, with the header copied beside note.c).
        let cc = try Self.shell(
            "cd '\(folder)' && \(install.pkgConfig) && cc -shared -fPIC $(pkg-config --cflags rowcast-plugin) -o librowcast-note.so note.c"
        )
        #expect(cc.status == 0, "\(cc.output)")
        let make = try Self.shell("cd '\(folder)' && rm librowcast-note.so && make")
        #expect(make.status == 0, "\(make.output)")
        let library = folder + "/librowcast-note.so"

        let check = try Self.shell("'\(install.rowcast)' plugin check '\(library)'")
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("ok: plugin note 0.1.0"), "\(check.output)")
        #expect(check.output.contains("in a rowcast-plugin-host process"), "\(check.output)")

        let render = try Self.shell(
            "cd '\(folder)' && '\(install.rowcast)' plugin render librowcast-note.so --item item.json")
        #expect(render.status == 0, "\(render.output)")
        // The rows; a sanitized build's host adds a notice line of its own on standard error.
        let rows = render.output.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(
            rows == [#"{"id":"1","type":"note","cell":"NoteCell","height":64,"content":{"title":"Hello"}}"#],
            "\(render.output)")

        // NDJSON on standard input: one row, one item error, exit status 1.
        let items = #"{"id":"a","type":"note","data":{"title":"A"}}"# + "\n" + #"{"id":"b","type":"note","data":{}}"#
        let mixed = try Self.shell(
            "printf '%s\\n' '\(items)' | '\(install.rowcast)' plugin render '\(library)' --in-process 2>&1")
        #expect(mixed.status == 1, "\(mixed.output)")
        #expect(mixed.output.contains(#"{"id":"a","type":"note","cell":"NoteCell""#), "\(mixed.output)")
        #expect(
            mixed.output.contains(#"error: missing_field: item "b" (type note): missing field "title""#),
            "\(mixed.output)")

        let snapshot = try Self.publishThroughDaemon(
            library: library, type: "note", id: "n1", fields: ["title=From the daemon"])
        #expect(
            snapshot.contains(
                #"{"id":"n1","type":"note","cell":"NoteCell","height":64,"content":{"title":"From the daemon"}}"#),
            "\(snapshot)")
    }

    @Test(
        "rowcast plugin check says what the loader would: an ABI mismatch names both versions, exit status 1; a name rowcastd skips is noted"
    )
    func checkRefusal() throws {
        let directory = try TemporaryDirectory("rowcast-check")
        let fixture = BuildProducts.repositoryRoot.appendingPathComponent("Tests/Fixtures/c-plugin/abi99_plugin.c").path
        let library = directory.path + "/librowcast-future.so"
        let cc = try Self.shell("cc -shared -fPIC -o '\(library)' '\(fixture)'")
        #expect(cc.status == 0, "\(cc.output)")
        for mode in [[], ["--in-process"]] {
            let check = try CommandRunner.run(["plugin", "check", library] + mode)
            #expect(check.process.terminationStatus == 1, "\(mode)")
            // (A sanitized build's host adds a notice line of its own before it.)
            #expect(
                check.stderr.split(separator: "\n").contains { $0.hasPrefix("error: abi_mismatch: \(library): ") },
                "\(mode): \(check.stderr)")
            #expect(check.stderr.contains("99") && check.stderr.contains("1"), "\(check.stderr)")
        }
        let misnamed = directory.path + "/product.so"
        try FileManager.default.copyItem(atPath: try BuildProducts.path("librowcast-product.so"), toPath: misnamed)
        let check = try CommandRunner.run(["plugin", "check", misnamed])
        #expect(check.process.terminationStatus == 0, "\(check.stderr)")
        #expect(check.stderr.contains("rowcastd loads only files named librowcast-*.so"), "\(check.stderr)")
    }

    @Test(
        "rowcast plugin render in a host: an item that crashes the plugin gets plugin_crashed, bad output plugin_failed, and the items after them still render"
    )
    func renderSurvivesFaults() throws {
        let plugins = try FaultPlugin.directory()
        let library = plugins.path + "/" + FaultPlugin.fileName
        let items = ["ok1", "segv", "garbage", "ok2"].map { #"{"id":"\#($0)","type":"fault"}"# }.joined(separator: "\n")
        let render = try CommandRunner(["plugin", "render", library, "--plugin-timeout", "5000"], input: items + "\n")
        #expect(render.wait(timeout: 60) == 1, "\(render.stderr)")
        let rows = render.stdout.split(separator: "\n")
        #expect(
            rows.count == 2 && rows[0].hasPrefix(#"{"id":"ok1","type":"fault","cell":"FaultCell""#)
                && rows[1].hasPrefix(#"{"id":"ok2","#), "\(render.stdout)")
        #expect(
            render.stderr.contains(#"error: plugin_crashed: plugin fault ("#)
                && render.stderr.contains(#"crashed on item "segv""#), "\(render.stderr)")
        // No daemon holds the item: nothing to reload or retry, only what rowcastd would do.
        #expect(
            render.stderr.contains("; in rowcastd the item would be stored and quarantined")
                && !render.stderr.contains("reload"), "\(render.stderr)")
        #expect(
            render.stderr.contains(
                #"error: plugin_failed: the plugin for type fault returned an invalid row for item "garbage""#),
            "\(render.stderr)")
    }

    @Test("rowcast plugin render --section renders header rows; a section type the plugin does not render is an error")
    func renderHeaders() throws {
        let directory = try TemporaryDirectory("rowcast-sections")
        let sections = directory.path + "/sections.ndjson"
        try Data(
            (#"{"id":"ads","type":"sponsored","header":{"title":"Deals"}}"# + "\n" + #"{"id":"x","type":"nothing"}"#
                + "\n").utf8
        )
        .write(to: URL(fileURLWithPath: sections))
        let render = try CommandRunner.run([
            "plugin", "render", try BuildProducts.path("librowcast-advertising.so"), "--section", sections,
        ])
        #expect(render.process.terminationStatus == 1, "\(render.stderr)")
        #expect(
            render.stdout.hasPrefix(
                #"{"cell":"SponsoredHeaderCell","height":44,"content":{"title":"Deals","subtitle":"Sponsored"}"#),
            "\(render.stdout)")
        #expect(render.stdout.split(separator: "\n").count == 1, "\(render.stdout)")
        #expect(
            render.stderr.contains(
                #"error: unknown_type: section "x" (type nothing): plugin advertising renders no section type "nothing" (only sponsored)"#
            ), "\(render.stderr)")
    }

    @Test(
        "a Swift plugin from an installed SDK: rowcast plugin new depends on PREFIX/share/rowcast/sdk, a whole copy of SDK/ that resolves offline"
    )
    func swiftPluginOnInstalledSDK() throws {
        let install = try Install()
        let outside = try TemporaryDirectory("rowcast-author")
        let folder = outside.path + "/article"
        defer { Self.removeBuildLocks(of: folder) }
        let new = try Self.shell("cd '\(outside.path)' && '\(install.rowcast)' plugin new article")
        #expect(new.status == 0, "\(new.output)")
        let sdk = install.prefix.path + "/share/rowcast/sdk"
        #expect(new.output.contains("plugin SDK: \(sdk) (installed beside rowcast)"), "\(new.output)")
        let manifest = try String(contentsOfFile: folder + "/Package.swift", encoding: .utf8)
        #expect(manifest.contains(".package(path: \"\(sdk)\")"), "\(manifest)")

        // The installed sources are the repository's SDK, file for file (the build from a
        // checkout's SDK/ is PluginNewcomerEndToEndTests); the dependency resolves without a network.
        let root = BuildProducts.repositoryRoot.path
        let diff = try Self.shell(
            "diff -r '\(root)/SDK/Sources' '\(sdk)/Sources' && diff '\(root)/SDK/Package.swift' '\(sdk)/Package.swift'")
        #expect(diff.status == 0, "\(diff.output)")
        let resolve = try Self.shell("cd '\(folder)' && swift package resolve 2>&1", timeout: 300)
        #expect(resolve.status == 0, "\(resolve.output.suffix(3000))")
        let checkouts = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/.build/checkouts")) ?? []
        #expect(checkouts.isEmpty, "the plugin package resolved more than the SDK: \(checkouts)")
    }

    @Test(
        "the C template reads items with any JSON whitespace (json.dumps writes a space after each colon), in rowcastd and in plugin render alike"
    )
    func cTemplateTakesSpacedJSON() throws {
        let outside = try TemporaryDirectory("rowcast-author")
        let folder = outside.path + "/note"
        let new = try CommandRunner.run(["plugin", "new", "note", "--c", "--directory", folder])
        #expect(new.process.terminationStatus == 0, "\(new.stderr)")
        let library = folder + "/librowcast-note.so"
        let header = BuildProducts.repositoryRoot.appendingPathComponent("SDK/Sources/CRowCastPlugin/include").path
        let cc = try Self.shell(
            "cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -I '\(header)' -o '\(library)' '\(folder)/note.c'")
        #expect(cc.status == 0, "\(cc.output)")

        // Spaces, a newline and a tab around the colons, an escaped quote, and a "title"
        // nested in another member first: each row takes the item's own data.title.
        let items = [
            #"{"id":"1","type":"note","data": {"title": "Hello \"you\""}}"#,
            "{\"id\":\"2\",\"type\":\"note\",\"data\":{\"extra\":[1,{\"title\":2}] ,\"title\"\t:\n\"Tab\"}}",
            #"{"id":"3","type":"note","data":{"title":3}}"#,
        ]
        let input = folder + "/items.json"
        try ("[" + items.joined(separator: ",\n") + "]").write(toFile: input, atomically: true, encoding: .utf8)
        let render = try Self.shell(
            "'\(try BuildProducts.path("rowcast"))' plugin render '\(library)' --item '\(input)' 2>&1")
        #expect(render.status == 1, "\(render.output)")
        #expect(
            render.output.contains(
                #"{"id":"1","type":"note","cell":"NoteCell","height":64,"content":{"title":"Hello \"you\""}}"#),
            "\(render.output)")
        #expect(
            render.output.contains(
                #"{"id":"2","type":"note","cell":"NoteCell","height":64,"content":{"title":"Tab"}}"#),
            "\(render.output)")
        #expect(
            render.output.contains(#"error: invalid_field: item "3" (type note): field "title" must be a string"#),
            "\(render.output)")

        let plugins = try TemporaryDirectory("rowcast-plugins")
        let installed = plugins.path + "/librowcast-note.so"
        try FileManager.default.copyItem(atPath: library, toPath: installed)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: installed)
        let daemon = try DaemonProcess(pluginDirectory: plugins)
        defer { daemon.stop() }
        // As Python's json.dumps writes it and a pyzmq producer sends it, byte for byte (rowcast
        // publish would send it compacted).
        let spaced =
            #"{"op": "upsert", "feed": "news", "req": 1, "item": {"id": "n1", "type": "note", "data": {"title": "From Python"}}}"#
        let reply = try RawPeer(daemon).requestText(spaced)
        #expect(reply.contains(#""ok":true"#), "\(reply)")
        let snapshot = try CommandRunner.run(["snapshot", "--control", daemon.control, "--feed", "news", "--json"])
        #expect(
            snapshot.stdout.contains(
                #"{"id":"n1","type":"note","cell":"NoteCell","height":64,"content":{"title":"From Python"}}"#),
            "\(snapshot.stdout)")

        // The file above through rowcast publish and rowcastd: the same rows and the same error.
        let file = try CommandRunner.run(["publish", "--feed", "news", "--file", input, "--control", daemon.control])
        #expect(file.process.terminationStatus == 1, "\(file.stderr)")
        #expect(file.stderr.contains(#"error: invalid_field: item "3""#), "\(file.stderr)")
        let rows = try CommandRunner.run(["snapshot", "--control", daemon.control, "--feed", "news", "--json"])
        #expect(rows.stdout.contains(#""content":{"title":"Hello \"you\""}"#), "\(rows.stdout)")
        #expect(rows.stdout.contains(#""content":{"title":"Tab"}"#), "\(rows.stdout)")
    }
}
