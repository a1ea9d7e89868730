import Foundation

/// A real PostgreSQL server for a test: `initdb` and `pg_ctl` (as the `postgres` user when the
/// tests run as root, since PostgreSQL refuses root) in a fresh temporary directory, listening
/// on 127.0.0.1 on a free port and on a unix socket inside that directory. `stop()` (also run
/// by a watcher process when the test process ends, however it ends) stops it with
/// `pg_ctl stop -m immediate` and removes the directory.
///
/// `shared` is one server per test process, for suites that need a database each
/// (`makeDatabase`), not a server each.
public final class PostgreSQLTestServer: @unchecked Sendable {
    // `@unchecked Sendable`: the mutable state (`databases`, `stopped`, `process`) is behind `lock`.

    /// The directory of PostgreSQL's programs, or nil when they are not installed: the newest
    /// `/usr/lib/postgresql/*/bin` with `initdb` and `pg_ctl`.
    public static let binaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap { Int($0) }.sorted(by: >)
        return versions.map { "\(root)/\($0)/bin" }.first {
            FileManager.default.isExecutableFile(atPath: $0 + "/initdb")
                && FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl")
        }
    }()

    /// Why PostgreSQL tests cannot run here, or nil when they can.
    public static var unavailableReason: String? {
        binaries == nil
            ? "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): install Debian's postgresql package (make deps)"
            : nil
    }

    /// Whether PostgreSQL tests run: always under CI (`CI=true`, where a missing server fails
    /// them), else only when the programs are installed (skipped otherwise, with the reason
    /// printed once).
    public static let testsEnabled: Bool = {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        if let reason = unavailableReason {
            FileHandle.standardError.write(Data("PostgreSQL tests skipped: \(reason)\n".utf8))
            return false
        }
        return true
    }()

    /// One server for the whole test process, started on first use.
    public static func shared() throws -> PostgreSQLTestServer {
        try sharedLock.withLock {
            if let sharedServer { return sharedServer }
            let server = try PostgreSQLTestServer()
            sharedServer = server
            return server
        }
    }

    nonisolated(unsafe) private static var sharedServer: PostgreSQLTestServer?
    private static let sharedLock = NSLock()

    /// The temporary directory (data in `data/`, the unix socket here, the log in `server.log`).
    public let directory: String
    /// The tcp port on 127.0.0.1.
    public let port: Int
    private let bin: String
    private let lock = NSLock()
    private var databases = 0
    private var stopped = false
    /// The running server's process (`runuser` around it when root).
    private var process: Process?

    /// Creates the cluster and starts the server (each step bounded); throws with PostgreSQL's
    /// own output when a step fails.
    public init(port: Int? = nil) throws {
        guard let bin = Self.binaries else { throw PostgreSQLTestFailure(Self.unavailableReason!) }
        self.bin = bin
        let template = NSTemporaryDirectory() + "rowcast-pg-XXXXXX"
        var buffer = Array(template.utf8CString)
        guard mkdtemp(&buffer) != nil else { throw PostgreSQLTestFailure("mkdtemp failed for \(template)") }
        directory = String(cString: buffer)
        self.port = try port ?? Self.freePort()
        do {
            try Self.giveToPostgres(directory)
            try run(
                "initdb",
                ["-D", dataDirectory, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"])
            try FileManager.default.createDirectory(atPath: directory + "/run", withIntermediateDirectories: true)
            try Self.giveToPostgres(directory + "/run")
            watchForExit()
            try start()
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// The data directory.
    public var dataDirectory: String { directory + "/data" }

    /// The server's log so far (for a failing test's message).
    public var log: String { (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? "" }

    /// A URL for `database` as the `postgres` superuser over tcp.
    public func url(database: String) -> String { "postgresql://postgres@127.0.0.1:\(port)/\(database)" }

    /// A new, empty database; its URL.
    public func makeDatabase() throws -> String {
        let name = lock.withLock {
            databases += 1
            return "rowcast_test_\(databases)"
        }
        try run("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name], asPostgres: false)
        return url(database: name)
    }

    /// Runs `sql` in the database of `url` with `psql`; throws with its output when it fails.
    public func execute(_ sql: String, url: String) throws {
        try run("psql", ["-v", "ON_ERROR_STOP=1", "-q", "-d", url, "-c", sql], asPostgres: false)
    }

    /// Starts the server (again, after `stopServer`) as a child process in the foreground, its
    /// output in `server.log`, and waits (at most 60 s) until it accepts connections.
    ///
    /// Not through `pg_ctl start`: the server it leaves behind would inherit the descriptor
    /// by which Foundation's `Process` sees its child end, and the wait would never end.
    public func start() throws {
        let server = Process()
        let postgres = [
            bin + "/postgres", "-D", dataDirectory, "-p", String(port), "-k", directory + "/run", "-c",
            "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=200",
        ]
        if getuid() == 0 {
            server.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            server.arguments = ["-u", "postgres", "--"] + postgres
        } else {
            server.executableURL = URL(fileURLWithPath: postgres[0])
            server.arguments = Array(postgres.dropFirst())
        }
        let logPath = directory + "/server.log"
        if !FileManager.default.fileExists(atPath: logPath) {
            FileManager.default.createFile(atPath: logPath, contents: nil)
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        server.standardInput = FileHandle.nullDevice
        server.standardOutput = log
        server.standardError = log
        try server.run()
        lock.withLock { process = server }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            guard server.isRunning else {
                throw PostgreSQLTestFailure("postgres exited with status \(server.terminationStatus): \(self.log)")
            }
            let (status, _) = try ProgramRun.run(
                bin + "/pg_isready", ["-q", "-h", "127.0.0.1", "-p", String(port), "-t", "2"], timeout: 10)
            if status == 0 { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw PostgreSQLTestFailure("postgres did not accept connections within 60 s: \(self.log)")
    }

    /// Stops the server (`mode`: `fast`, or `immediate` as a crash would) and waits until it is
    /// down; the data stays for `start`.
    public func stopServer(mode: String = "fast") throws {
        try run("pg_ctl", ["-D", dataDirectory, "-w", "-t", "60", "stop", "-m", mode])
        let server = lock.withLock { process }
        let deadline = Date().addingTimeInterval(30)
        while server?.isRunning == true, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    }

    /// Stops the server at once and removes the directory (idempotent).
    public func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        try? run("pg_ctl", ["-D", dataDirectory, "-w", "-t", "30", "stop", "-m", "immediate"])
        if let server = lock.withLock({ process }), server.isRunning {
            kill(server.processIdentifier, SIGKILL)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs one of PostgreSQL's programs (as `postgres` when this process is root); throws with
    /// its output when it fails or takes longer than 90 s.
    @discardableResult
    private func run(_ program: String, _ arguments: [String], asPostgres: Bool = true) throws -> String {
        let path = bin + "/" + program
        let (status, output) =
            getuid() == 0 && asPostgres
            ? try ProgramRun.run("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments, timeout: 90)
            : try ProgramRun.run(path, arguments, timeout: 90)
        guard status == 0 else {
            throw PostgreSQLTestFailure("\(program) \(arguments.joined(separator: " ")) exited \(status): \(output)")
        }
        return output
    }

    /// Hands `path` to the `postgres` user when this process is root.
    private static func giveToPostgres(_ path: String) throws {
        guard getuid() == 0 else { return }
        guard let user = getpwnam("postgres") else {
            throw PostgreSQLTestFailure("the tests run as root but there is no postgres user to run PostgreSQL as")
        }
        guard chown(path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw PostgreSQLTestFailure("chown \(path) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Starts a watcher that stops the server and removes the directory once this process is
    /// gone, so a test process that crashes leaves no server behind.
    private func watchForExit() {
        let stopCommand =
            (getuid() == 0 ? "/usr/sbin/runuser -u postgres -- " : "")
            + "'\(bin)/pg_ctl' -D '\(dataDirectory)' -w -t 30 stop -m immediate"
        let script =
            "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stopCommand) >/dev/null 2>&1; rm -rf '\(directory)'"
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/bin/sh")
        watcher.arguments = ["-c", script]
        watcher.standardInput = FileHandle.nullDevice
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try? watcher.run()
    }

    /// A loopback tcp port that was free a moment ago.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PostgreSQLTestFailure("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw PostgreSQLTestFailure("bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Why the test server could not be set up or used.
public struct PostgreSQLTestFailure: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// A failure saying `description`.
    public init(_ description: String) { self.description = description }
}
