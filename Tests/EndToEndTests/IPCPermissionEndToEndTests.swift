import Foundation
import RowCastJSON
import Testing

/// `ipc://` sockets get `socket_mode` and `socket_group`: with 0660 a user outside the group
/// cannot connect, a member can. Runs the CLI as an unprivileged user created for the test.
@Suite(.serialized)
struct IPCPermissionEndToEndTests {
    static let outsider = "rowcast-e2e-outsider"
    static let group = "rowcast-e2e-clients"

    /// Creates the test user and group when absent; nil and a reason when that is impossible.
    static func prepareAccounts() throws -> (uid: UInt32, gid: UInt32, clientsGid: UInt32) {
        if getgrnam(group) == nil { try run("/usr/sbin/groupadd", ["--system", group]) }
        if getpwnam(outsider) == nil {
            try run(
                "/usr/sbin/useradd",
                ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", outsider])
        }
        guard let user = getpwnam(outsider), let clients = getgrnam(group) else {
            throw TestFailure("cannot create \(outsider) and \(group)")
        }
        return (user.pointee.pw_uid, user.pointee.pw_gid, clients.pointee.gr_gid)
    }

    static func run(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("\(program) \(arguments) exited \(process.terminationStatus)")
        }
    }

    @Test(
        "an ipc:// endpoint with mode 0660 refuses a user outside its group and serves a member",
        .enabled(
            if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
                && FileManager.default.isExecutableFile(atPath: "/usr/sbin/useradd"),
            "needs root, setpriv and useradd to create an unprivileged user and run a client as it"))
    func outsiderRefused() throws {
        let accounts = try Self.prepareAccounts()
        let sockets = try TemporaryDirectory("rowcast-ipc")
        #expect(chmod(sockets.path, 0o755) == 0)
        let endpoints = (
            "ipc://\(sockets.path)/ingest.sock", "ipc://\(sockets.path)/control.sock",
            "ipc://\(sockets.path)/publish.sock"
        )
        let daemon = try DaemonProcess(endpoints: endpoints, extraArguments: ["--socket-group", Self.group])
        #expect(daemon.control == endpoints.1)

        for name in ["ingest", "control", "publish"] {
            var info = stat()
            #expect(stat("\(sockets.path)/\(name).sock", &info) == 0)
            #expect(info.st_mode & 0o777 == 0o660, "\(name).sock has mode \(String(info.st_mode & 0o777, radix: 8))")
            #expect(info.st_gid == accounts.clientsGid)
        }

        let asOutsider = [
            "/usr/bin/setpriv", "--reuid=\(accounts.uid)", "--regid=\(accounts.gid)", "--clear-groups", "--",
        ]
        let refused = try CommandRunner(
            ["publish", "--control", endpoints.1, "--timeout", "2", "--feed", "payroll", "--reset"],
            launcher: asOutsider)
        #expect(refused.wait() != 0, "a user outside \(Self.group) reached the control socket: \(refused.stdout)")
        #expect(
            refused.stderr.hasPrefix("error: permission_denied: cannot connect to \(endpoints.1)"), "\(refused.stderr)")

        let asMember = [
            "/usr/bin/setpriv", "--reuid=\(accounts.uid)", "--regid=\(accounts.gid)", "--groups=\(accounts.clientsGid)",
            "--",
        ]
        let member = try CommandRunner(["status", "--control", endpoints.1, "--timeout", "10"], launcher: asMember)
        #expect(member.wait() == 0, "a member of \(Self.group) was refused: \(member.stderr)")

        // The outsider's reset was never applied.
        let status = try RawPeer(daemon).request(["op": "status"])
        #expect(status["ok"] == true)
        #expect(!(status["feeds"]?.description.contains("payroll") ?? true), "\(status)")
    }

    @Test("a second rowcastd given the same ipc:// paths exits 75 naming the first one's pid, which keeps serving")
    func secondDaemonOnTheSamePathsIsRefused() throws {
        let sockets = try TemporaryDirectory("rowcast-ipc")
        let endpoints = (
            "ipc://\(sockets.path)/ingest.sock", "ipc://\(sockets.path)/control.sock",
            "ipc://\(sockets.path)/publish.sock"
        )
        let first = try DaemonProcess(endpoints: endpoints)
        defer { first.stop() }
        var lock = stat()
        #expect(stat("\(sockets.path)/control.sock.lock", &lock) == 0)
        #expect(lock.st_mode & 0o777 == 0o600)

        // Its own state directory: only the socket paths are shared.
        let second = try runRowcastdToExit([
            "--ingest", endpoints.0, "--control", endpoints.1, "--publish", endpoints.2,
            "--state-dir", try TemporaryDirectory("rowcast-state").path,
        ])
        #expect(second.status == 75, "\(second.stderr)")
        #expect(second.stderr.contains("ipc socket \(sockets.path)/ingest.sock"), "\(second.stderr)")
        #expect(second.stderr.contains("pid \(first.process.processIdentifier)"), "\(second.stderr)")

        let status = try RawPeer(first).request(["op": "status"])
        #expect(status["ok"] == true)

        // Once the first stops, the paths are free again.
        first.stop()
        let third = try DaemonProcess(endpoints: endpoints)
        defer { third.stop() }
        #expect(try RawPeer(third).request(["op": "status"])["ok"] == true)
    }
}
