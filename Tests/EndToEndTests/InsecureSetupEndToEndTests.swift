import Foundation
import RowCastJSON
import Testing

/// rowcastd refuses the setups that would let anyone in: a network endpoint without CURVE,
/// and plugin files that someone else could have written.
@Suite(.serialized)
struct InsecureSetupEndToEndTests {
    @Test("a bind beyond loopback without CURVE stops rowcastd and --check-config with status 78 and the fix")
    func nonLoopbackBindRefused() throws {
        for check in [true, false] {
            let state = try TemporaryDirectory("rowcast-state")
            let run = try runRowcastdToExit(
                (check ? ["--check-config"] : []) + ["--publish", "tcp://0.0.0.0:0", "--state-dir", state.path])
            #expect(run.status == 78, "status \(run.status): \(run.stderr)")
            #expect(
                run.stderr.contains("endpoints.publish: \"tcp://0.0.0.0:0\" listens beyond loopback without CURVE"),
                "\(run.stderr)")
            #expect(run.stderr.contains("allow_insecure_tcp: true"))
        }
        let accepted = try runRowcastdToExit(["--check-config", "--publish", "tcp://0.0.0.0:0", "--allow-insecure-tcp"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
    }

    @Test("a world-writable plugin file is refused with its name and the fix; the other plugins load")
    func worldWritablePluginRefused() throws {
        let plugins = try DaemonProcess.pluginDirectory()
        let file = plugins.path + "/librowcast-advertising.so"
        #expect(chmod(file, 0o666) == 0)
        let daemon = try DaemonProcess(pluginDirectory: plugins)
        let peer = try RawPeer(daemon)
        let reply = try peer.request(["op": "plugins"])
        #expect(reply["types"]?["product"]?["plugin"] == "product")
        #expect(reply["types"]?["advertising"] == nil)
        let refusal = try #require(reply["refusals"]?.arrayValue?.first)
        #expect(refusal["file"] == .string(file))
        #expect(refusal["code"] == "file_insecure")
        #expect(refusal["reason"]?.stringValue?.contains("is writable by its group and by others (mode 0666)") == true)
        #expect(refusal["reason"]?.stringValue?.contains("fix: chmod go-w \(file)") == true)
        #expect(daemon.log.contains("file_insecure"))

        // Fixed and reloaded: it loads.
        #expect(chmod(file, 0o644) == 0)
        let reload = try peer.request(["op": "reload"])
        #expect(reload["loaded"]?.arrayValue?.map { $0["name"] } == ["advertising"])
        #expect(reload["refusals"] == [])
    }

    @Test(
        "a plugin file owned by another user is refused",
        .enabled(if: getuid() == 0, "needs root to give a file to another user"))
    func foreignOwnerRefused() throws {
        let plugins = try DaemonProcess.pluginDirectory()
        let file = plugins.path + "/librowcast-advertising.so"
        #expect(chown(file, 65534, 65534) == 0)
        let daemon = try DaemonProcess(pluginDirectory: plugins)
        let reply = try RawPeer(daemon).request(["op": "plugins"])
        #expect(reply["types"]?["product"]?["plugin"] == "product")
        let refusal = try #require(reply["refusals"]?.arrayValue?.first)
        #expect(refusal["code"] == "file_insecure")
        #expect(refusal["reason"]?.stringValue?.contains("is owned by") == true)
        #expect(refusal["reason"]?.stringValue?.contains("not by root or rowcastd's user") == true)
    }
}
