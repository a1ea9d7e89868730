import Foundation
import RowCastJSON
import Testing

/// The unit sets MemoryDenyWriteExecute=yes. rowcastd runs under the same seccomp filter
/// (Tests/Fixtures/sandbox/mdwe_exec.c) and still loads plugins, including a changed plugin
/// file loaded anew from a private copy on reload.
@Suite(.serialized)
struct MemoryDenyWriteExecuteTests {
    static let compiler = ["/usr/bin/cc", "/usr/bin/gcc"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("plugins load and reload under MemoryDenyWriteExecute", .enabled(if: compiler != nil, "no C compiler"))
    func pluginsUnderMemoryDenyWriteExecute() throws {
        let tools = try TemporaryDirectory("rowcast-mdwe")
        let wrapper = tools.path + "/mdwe_exec"
        let source = BuildProducts.repositoryRoot.appendingPathComponent("Tests/Fixtures/sandbox/mdwe_exec.c").path
        #expect(try Self.run(Self.compiler!, ["-O1", "-Wall", "-Werror", "-o", wrapper, source]) == 0)
        #expect(try Self.run(wrapper, ["--self-check"]) == 0, "the filter does not refuse writable executable memory")

        let daemon = try DaemonProcess(plugins: ["librowcast-product.so"], launcher: [wrapper])
        let peer = try RawPeer(daemon)
        #expect(
            try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1")])["ok"] == true)
        // A new plugin, and a changed file for a loaded one (loaded anew from a private copy).
        let directory = daemon.pluginDirectory.path
        try FileManager.default.copyItem(
            atPath: try BuildProducts.path("librowcast-advertising.so"),
            toPath: directory + "/librowcast-advertising.so")
        try FileManager.default.removeItem(atPath: directory + "/librowcast-product.so")
        try FileManager.default.copyItem(
            atPath: try BuildProducts.path("librowcast-product.so"), toPath: directory + "/librowcast-product.so")
        let reload = try peer.request(["op": "reload"])
        #expect(reload["ok"] == true, "\(reload)")
        #expect(
            Set(reload["loaded"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []) == [
                "advertising", "product",
            ])
        #expect(
            try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.advertising("ad1")])[
                "warning"] == nil)
        #expect(
            try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("2")])["ok"] == true)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 20) == 0)
    }

    static func run(_ program: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
