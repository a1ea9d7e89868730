import Foundation
import RowCastJSON
import Testing

/// rowcastd on a volume that fills up: a 2 MiB tmpfs mounted over its state directory in a
/// mount namespace of the test's making (`unshare -m`).
@Suite(.serialized)
struct FullDiskEndToEndTests {
    /// Runs rowcastd with a 2 MiB tmpfs mounted on `$ROWCAST_TEST_TMPFS`.
    static let smallVolume = [
        "/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
        "mount -t tmpfs -o size=2m tmpfs \"$ROWCAST_TEST_TMPFS\" && exec \"$0\" \"$@\"",
    ]

    /// Whether the test may make a mount namespace and mount a tmpfs in it.
    static let permitted: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"),
            let directory = try? TemporaryDirectory("rowcast-probe")
        else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: smallVolume[0])
        process.arguments = Array(smallVolume.dropFirst()) + ["/bin/true"]
        process.environment = ["ROWCAST_TEST_TMPFS": directory.path, "PATH": "/usr/bin:/bin:/usr/sbin:/sbin"]
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    @Test(
        "on a 2 MiB volume, 400 acked items of about 300 bytes all fit: the log stays near the size of the data (it filled the volume after 100 to 190)",
        .enabled(if: permitted, "unshare -m and mount -t tmpfs are not permitted here (needs root or CAP_SYS_ADMIN)"),
        .timeLimit(.minutes(2)))
    func logStaysSmallOnSmallVolume() throws {
        let state = try TemporaryDirectory("rowcast-small-volume")
        let daemon = try DaemonProcess(
            stateDirectory: state, environment: ["ROWCAST_TEST_TMPFS": state.path], launcher: Self.smallVolume)
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        let name = String(repeating: "x", count: 200)
        var acked = 0
        for index in 0..<400 {
            let reply = try peer.request([
                "op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("\(index)", name: name),
            ])
            guard reply["ok"] == true else {
                Issue.record("item \(index) refused: \(reply)")
                break
            }
            acked += 1
        }
        #expect(acked == 400)
        // The volume as rowcastd sees it, through its mount namespace.
        let files = "/proc/\(daemon.process.processIdentifier)/root\(state.path)/rowcast.db"
        let sizes = ["", "-wal"].map {
            (try? FileManager.default.attributesOfItem(atPath: files + $0)[.size] as? Int) ?? -1
        }
        print("small volume: \(acked) items acked; database \(sizes[0] / 1024) KiB, log \(sizes[1] / 1024) KiB")
    }

    @Test(
        "a start on a full disk exits 73, naming the directory and the free space",
        .enabled(if: permitted, "unshare -m and mount -t tmpfs are not permitted here (needs root or CAP_SYS_ADMIN)"),
        .timeLimit(.minutes(1)))
    func startOnFullDisk() throws {
        let state = try TemporaryDirectory("rowcast-small-volume")
        // The volume is filled (dd until ENOSPC) before rowcastd starts on it.
        let fullVolume = [
            "/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
            "mount -t tmpfs -o size=2m tmpfs \"$ROWCAST_TEST_TMPFS\" && { dd if=/dev/zero of=\"$ROWCAST_TEST_TMPFS/filler\" bs=4096 2>/dev/null; exec \"$0\" \"$@\"; }",
        ]
        let daemon = try DaemonProcess(
            stateDirectory: state, environment: ["ROWCAST_TEST_TMPFS": state.path], waitForReady: false,
            launcher: fullVolume)
        defer { daemon.stop() }
        let status = daemon.waitForExit(timeout: 30)
        #expect(status == 73, "log:\n\(daemon.log)")
        #expect(daemon.log.contains("the disk holding state directory \(state.path) is full"), "log:\n\(daemon.log)")
    }

    @Test(
        "a stop on a full disk that cannot record its clean stop exits 73 with the reason, never 0",
        .enabled(if: permitted, "unshare -m and mount -t tmpfs are not permitted here (needs root or CAP_SYS_ADMIN)"),
        .timeLimit(.minutes(2)))
    func stopOnFullDisk() throws {
        let state = try TemporaryDirectory("rowcast-small-volume")
        let daemon = try DaemonProcess(
            stateDirectory: state, environment: ["ROWCAST_TEST_TMPFS": state.path], launcher: Self.smallVolume)
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        let name = String(repeating: "x", count: 20_000)
        var refused = false
        for index in 0..<400 {
            let reply = try peer.request([
                "op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("\(index)", name: name),
            ])
            if reply["ok"] == false {
                #expect(reply["error"]?["code"] == "storage_error")
                refused = true
                break
            }
        }
        #expect(refused, "2 MiB never filled up")
        daemon.signal(SIGTERM)
        let status = daemon.waitForExit(timeout: 30)
        if daemon.log.contains("could not close the state cleanly") {
            #expect(status == 73, "log:\n\(daemon.log)")
            #expect(
                daemon.log.contains("rowcastd: stopped: no space left while recording a clean stop in"),
                "log:\n\(daemon.log)")
        } else {
            // The log had room for the clean stop after all: a clean exit.
            #expect(status == 0, "log:\n\(daemon.log)")
        }
        print("full disk stop: exit \(status.map(String.init) ?? "none")")
    }

    @Test(
        "on a full disk each refused request is answered storage_error within a second, naming the free space",
        .enabled(if: permitted, "unshare -m and mount -t tmpfs are not permitted here (needs root or CAP_SYS_ADMIN)"),
        .timeLimit(.minutes(2)))
    func refusalsComeAtOnce() throws {
        let state = try TemporaryDirectory("rowcast-small-volume")
        let daemon = try DaemonProcess(
            stateDirectory: state, environment: ["ROWCAST_TEST_TMPFS": state.path], launcher: Self.smallVolume)
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        let name = String(repeating: "x", count: 20_000)
        var index = 0
        var waits: [Double] = []
        while index < 400 && waits.count < 6 {
            let started = Date()
            let reply = try peer.request([
                "op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("\(index)", name: name),
            ])
            index += 1
            guard reply["ok"] == false else { continue }
            waits.append(Date().timeIntervalSince(started))
            #expect(reply["error"]?["code"] == "storage_error", "\(reply)")
            #expect(reply["error"]?["message"]?.stringValue?.contains("free there") == true, "\(reply)")
        }
        #expect(waits.count == 6, "2 MiB never filled up")
        print("full disk: refusals answered in \(waits.map { String(format: "%.3f s", $0) })")
        #expect(waits.allSatisfy { $0 < 1 }, "refusals took \(waits) s; log:\n\(daemon.log)")
    }
}
