import Foundation
import RowCastJSON
import RowCastTesting
import Testing

/// The commands of the example apps' READMEs, run as written with /bin/sh against a real
/// rowcastd: `rowcast` on the PATH, its endpoint from `ROWCAST_CONTROL`, and the daemon started
/// with the `--cells` option the README names in place of `make run`.
@Suite(.serialized)
struct ExampleReadmeEndToEndTests {
    /// The lines of the README's `sh` code block number `index` (0: the first).
    static func commands(of app: String, block index: Int = 0) throws -> [String] {
        let readme = BuildProducts.repositoryRoot.appendingPathComponent("Examples/\(app)/README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let blocks = text.components(separatedBy: "```sh\n").dropFirst().map {
            $0.components(separatedBy: "```").first ?? ""
        }
        guard index < blocks.count else { throw TestFailure("\(app)/README.md has no sh block \(index)") }
        return blocks[index].split(separator: "\n").map(String.init)
    }

    /// Runs `line` with /bin/sh in `directory`, with rowcast first on the PATH.
    static func run(_ line: String, in directory: String, control: String) throws -> (status: Int32, output: String) {
        let bin = (try BuildProducts.path("rowcast") as NSString).deletingLastPathComponent
        return try ProgramRun.run(
            "/bin/sh",
            ["-c", "cd '\(directory)' && export PATH='\(bin)':\"$PATH\" ROWCAST_CONTROL='\(control)' && \(line) 2>&1"],
            timeout: 60)
    }

    @Test("Examples/items/README.md runs as written: every command succeeds, and t4 lands below the other to-dos")
    func itemsReadme() throws {
        let lines = try Self.commands(of: "items")
        let start = try #require(lines.first)
        #expect(start.hasPrefix("make run") && start.contains("--cells Examples/items/cells"), "\(start)")
        let daemon = try DaemonProcess(plugins: [], extraArguments: ["--cells", ExampleApp(name: "items").cells])
        defer { daemon.stop() }
        let root = BuildProducts.repositoryRoot.path
        for line in lines.dropFirst() {
            let run = try Self.run(line, in: root, control: daemon.control)
            #expect(run.status == 0, "\(line): \(run.output)")
        }
        let snapshot = try RawPeer(daemon).request(["op": "snapshot", "feed": "items"])
        let list = snapshot["sections"]?.arrayValue?.first { $0["id"] == "list" }
        #expect(list?["rows"]?.arrayValue?.map { $0["id"] } == ["t1", "t3", "t4"], "\(snapshot)")
    }

    @Test(
        "Examples/recipes/README.md's cc line, plugin check and render run as written, rendering feed.ndjson's header and recipes",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"))
    func recipesReadme() throws {
        let lines = try Self.commands(of: "recipes", block: 1)
        #expect(lines.first?.hasPrefix("cc ") == true, "\(lines)")
        // Every line as written, in a copy of Examples/recipes that sits two folders below a
        // link to the repository's SDK/, as the folder does in the checkout (the cc line's -I).
        let work = try TemporaryDirectory("rowcast-recipes")
        try FileManager.default.createDirectory(atPath: work.path + "/Examples", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: work.path + "/SDK",
            withDestinationPath: BuildProducts.repositoryRoot.appendingPathComponent("SDK").path)
        let folder = work.path + "/Examples/recipes"
        try FileManager.default.copyItem(atPath: ExampleApp(name: "recipes").folder.path, toPath: folder)
        var outputs: [String] = []
        for line in lines {
            let run = try Self.run(line, in: folder, control: "tcp://127.0.0.1:1")
            #expect(run.status == 0, "\(line): \(run.output)")
            outputs.append(run.output)
        }
        let rows = (outputs.last ?? "").split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(rows.count == 4, "\(outputs.last ?? "")")
        #expect(rows.first?.contains(#""cell":"CookbookHeaderCell""#) == true, "\(rows)")
        #expect(rows.dropFirst().allSatisfy { $0.contains(#""type":"recipe""#) }, "\(rows)")
    }
}
