import Foundation
import RowCastTesting
import Testing

/// The newcomer's plugin path with nothing installed but the toolchains: the `rowcast` of this
/// build (in the checkout's `.build`, no `make install-sdk`), docs/PLUGINS.md's two "first
/// plugin" blocks run as written in a folder outside the repository, with pkg-config pointed at
/// an empty directory so an SDK installed on this machine cannot be used by accident; then both
/// plugins in one real rowcastd.
@Suite(.serialized)
struct PluginNewcomerEndToEndTests {
    /// A shell prefix: `rowcast` of this build first on the PATH, no pkg-config search path
    /// (PKG_CONFIG_LIBDIR replaces even the default /usr/local/lib/pkgconfig), no include path
    /// from the environment, and HTTP proxies on a closed port (a package registry or download
    /// would fail). That the plugin resolved nothing remote, not even from a local git mirror,
    /// the test checks in its `.build/checkouts`.
    static func environment(_ outside: TemporaryDirectory) throws -> String {
        let bin = (try BuildProducts.path("rowcast") as NSString).deletingLastPathComponent
        let empty = outside.path + "/no-pkgconfig"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        return
            "export PATH='\(bin)':\"$PATH\" PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR='\(empty)' "
            + "http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9 "
            + "&& unset CPATH C_INCLUDE_PATH && "
    }

    /// Runs `script` with `/bin/sh -e` in `directory` after `environment`, killed after `timeout` seconds.
    static func run(
        _ script: String, in directory: String, environment: String, timeout: TimeInterval = 60
    ) throws -> (status: Int32, output: String) {
        try ProgramRun.run(
            "/bin/sh", ["-ec", environment + "cd '\(directory)'\n" + script + "\n"], timeout: timeout)
    }

    /// The rows (lines that are JSON objects) of `output`; a sanitized host adds notice lines.
    static func rows(_ output: String) -> [Substring] {
        output.split(separator: "\n").filter { $0.hasPrefix("{") }
    }

    @Test(
        "with no SDK installed, docs/PLUGINS.md's Swift and C first-plugin blocks run as written outside the repository; both plugins render, and load into one rowcastd, the C one taking items with spaces and newlines"
    )
    func pluginsWithoutAnInstall() throws {
        let outside = try TemporaryDirectory("rowcast-newcomer")
        defer { PluginSDKEndToEndTests.removeBuildLocks(of: outside.path + "/article") }
        let environment = try Self.environment(outside)
        let sdk = BuildProducts.repositoryRoot.appendingPathComponent("SDK").path

        // Swift: the block as written, with one build job (-j 1) so the suites running beside
        // this one keep a core; the build's scratch path is article/.build, in the temporary folder.
        let swiftBlock = try DocBlock.shellBlock(of: "docs/PLUGINS.md", containing: "rowcast plugin new article")
        #expect(swiftBlock.contains("swift build -c release "), "\(swiftBlock)")
        let swift = try Self.run(
            swiftBlock.replacingOccurrences(of: "swift build -c release ", with: "swift build -c release -j 1 "),
            in: outside.path, environment: environment, timeout: 900)
        #expect(swift.status == 0, "\(swift.output.suffix(3000))")
        #expect(swift.output.contains("plugin SDK: \(sdk) (the source tree rowcast was built in)"), "\(swift.output)")
        // The PATH finds this rowcast, so the next step names it plainly.
        #expect(
            swift.output.contains(
                "next: cd article && swift build -c release && rowcast plugin render .build/release/librowcast-article.so"
            ),
            "\(swift.output)")
        #expect(
            Self.rows(swift.output) == [
                #"{"id":"1","type":"article","cell":"ArticleCell","height":64,"content":{"title":"Hello","summary":"My first row"},"actions":[{"name":"select","kind":"open","params":{"id":"1"}}]}"#
            ], "\(swift.output.suffix(3000))")
        let folder = outside.path + "/article"
        let manifest = try String(contentsOfFile: folder + "/Package.swift", encoding: .utf8)
        #expect(manifest.contains(".package(path: \"\(sdk)\")"), "\(manifest)")
        #expect(!manifest.contains("share/rowcast/sdk") && !manifest.contains("/usr/"), "\(manifest)")
        let checkouts = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/.build/checkouts")) ?? []
        #expect(checkouts.isEmpty, "the plugin package resolved more than the local SDK: \(checkouts)")
        // The generated tests, on the SDK's test kit (a debug build).
        let test = try Self.run("swift test -j 1 2>&1", in: folder, environment: environment, timeout: 900)
        #expect(test.status == 0 && test.output.contains("3 tests"), "\(test.output.suffix(3000))")

        // C: the block as written; make is plain cc with the header copied beside note.c.
        let cBlock = try DocBlock.shellBlock(of: "docs/PLUGINS.md", containing: "rowcast plugin new note --c")
        let c = try Self.run(cBlock, in: outside.path, environment: environment)
        #expect(c.status == 0, "\(c.output)")
        #expect(
            Self.rows(c.output) == [
                #"{"id":"1","type":"note","cell":"NoteCell","height":64,"content":{"title":"Hello"}}"#
            ],
            "\(c.output)")
        let note = outside.path + "/note"
        let header = try String(contentsOfFile: note + "/rowcast_plugin.h", encoding: .utf8)
        #expect(
            header
                == (try String(
                    contentsOfFile: sdk + "/Sources/CRowCastPlugin/include/rowcast_plugin.h", encoding: .utf8)))
        // The build names no installed header (the README's install line names /usr/local).
        for file in ["note.c", "Makefile"] {
            let text = try String(contentsOfFile: note + "/" + file, encoding: .utf8)
            #expect(!text.contains("pkg-config") && !text.contains("/usr/local"), "\(file): \(text)")
        }
        // The header cc actually read is the copy beside note.c.
        let dependencies = try Self.run("cc -M note.c", in: note, environment: environment)
        #expect(dependencies.status == 0, "\(dependencies.output)")
        let headers = dependencies.output.split(whereSeparator: { " \\\n".contains($0) }).filter {
            $0.hasSuffix("rowcast_plugin.h")
        }
        #expect(headers == ["rowcast_plugin.h"], "\(dependencies.output)")

        // Items as Python's json.dumps(indent=2) writes them: spaces and newlines everywhere.
        let spaced = """
            [
              {
                "id": "s1",
                "type": "note",
                "data": {
                  "title": "Spaced"
                }
              },
              {"id" : "s2" , "type" : "note" , "data" : { "extra" : [ 1 , 2 ] ,
                "title"
                  :
                "Lines" }}
            ]
            """
        try spaced.write(toFile: note + "/spaced.json", atomically: true, encoding: .utf8)
        let render = try Self.run(
            "rowcast plugin render librowcast-note.so --item spaced.json 2>&1", in: note, environment: environment)
        #expect(render.status == 0, "\(render.output)")
        #expect(
            Self.rows(render.output) == [
                #"{"id":"s1","type":"note","cell":"NoteCell","height":64,"content":{"title":"Spaced"}}"#,
                #"{"id":"s2","type":"note","cell":"NoteCell","height":64,"content":{"title":"Lines"}}"#,
            ], "\(render.output)")

        // Both plugins in one rowcastd; the note item goes in as a producer wrote it, newlines and all.
        let plugins = try TemporaryDirectory("rowcast-plugins")
        for library in [folder + "/.build/release/librowcast-article.so", note + "/librowcast-note.so"] {
            let installed = plugins.path + "/" + (library as NSString).lastPathComponent
            try FileManager.default.copyItem(atPath: library, toPath: installed)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: installed)
        }
        let daemon = try DaemonProcess(pluginDirectory: plugins)
        defer { daemon.stop() }
        let article = try CommandRunner.run([
            "publish", "--control", daemon.control, "--feed", "news", "--type", "article", "--id", "a1", "--field",
            "title=Breaking",
        ])
        #expect(article.process.terminationStatus == 0, "\(article.stderr)")
        let request =
            "{\n  \"op\": \"upsert\",\n  \"feed\": \"news\",\n  \"req\": 1,\n  \"item\": {\n    \"id\": \"n1\",\n"
            + "    \"type\": \"note\",\n    \"data\": {\n      \"title\": \"From Python\"\n    }\n  }\n}"
        let reply = try RawPeer(daemon).requestText(request)
        #expect(reply.contains(#""ok":true"#), "\(reply)")
        let snapshot = try CommandRunner.run(["snapshot", "--control", daemon.control, "--feed", "news", "--json"])
        #expect(snapshot.process.terminationStatus == 0, "\(snapshot.stderr)")
        #expect(
            snapshot.stdout.contains(
                #"{"id":"a1","type":"article","cell":"ArticleCell","height":64,"content":{"title":"Breaking"}"#),
            "\(snapshot.stdout)")
        #expect(
            snapshot.stdout.contains(
                #"{"id":"n1","type":"note","cell":"NoteCell","height":64,"content":{"title":"From Python"}}"#),
            "\(snapshot.stdout)")
    }

    @Test(
        "rowcast plugin new with no SDK beside it or its build tree says where it looked and how to give one; --sdk takes an SDK folder of any name"
    )
    func noSDKFound() throws {
        let lone = try TemporaryDirectory("rowcast-lone")
        defer { PluginSDKEndToEndTests.removeBuildLocks(of: lone.path + "/article") }
        let rowcast = lone.path + "/bin/rowcast"
        try FileManager.default.createDirectory(atPath: lone.path + "/bin", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try BuildProducts.path("rowcast"), toPath: rowcast)
        let run = try ProgramRun.run("/bin/sh", ["-c", "cd '\(lone.path)' && '\(rowcast)' plugin new note --c"])
        #expect(run.status != 0, "\(run.output)")
        #expect(
            run.output.contains("no plugin SDK found beside rowcast (looked in \(lone.path)/share/rowcast/sdk, ")
                && run.output.contains("--sdk DIR"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: lone.path + "/note"), "a folder was written without an SDK")

        let wrong = try ProgramRun.run(
            "/bin/sh", ["-c", "cd '\(lone.path)' && '\(rowcast)' plugin new note --c --sdk '\(lone.path)'"])
        #expect(wrong.status != 0 && wrong.output.contains("holds no RowCast plugin SDK"), "\(wrong.output)")

        let given = BuildProducts.repositoryRoot.appendingPathComponent("SDK").path
        let right = try ProgramRun.run(
            "/bin/sh", ["-c", "cd '\(lone.path)' && '\(rowcast)' plugin new note --c --sdk '\(given)'"])
        #expect(right.status == 0 && right.output.contains("plugin SDK: \(given) (--sdk)"), "\(right.output)")
        // A rowcast the PATH does not find is named by its path in the next step.
        #expect(right.output.contains("&& \(rowcast) plugin render librowcast-note.so"), "\(right.output)")
        #expect(FileManager.default.fileExists(atPath: lone.path + "/note/rowcast_plugin.h"))

        // A copy of the SDK in a folder of another name: the manifest names the package by
        // that folder's identity (its name, lowercased), and SwiftPM accepts the graph.
        let copy = lone.path + "/My-SDK"
        try FileManager.default.copyItem(atPath: given, toPath: copy)
        let swift = try ProgramRun.run(
            "/bin/sh",
            [
                "-c",
                "cd '\(lone.path)' && '\(rowcast)' plugin new article --sdk My-SDK && cd article && swift package describe",
            ],
            timeout: 300)
        #expect(swift.status == 0 && swift.output.contains("Name: rowcast-article"), "\(swift.output.suffix(2000))")
        let manifest = try String(contentsOfFile: lone.path + "/article/Package.swift", encoding: .utf8)
        #expect(
            manifest.contains(".package(path: \"\(copy)\")")
                && manifest.contains(#".product(name: "RowCastKit", package: "my-sdk")"#), "\(manifest)")
    }
}
