import Foundation
import RowCastClient
import RowCastJSON
import RowCastTesting
import Testing

/// rowcastd on the PostgreSQL store (`--store postgresql://…`) against a real PostgreSQL
/// (`PostgreSQLTestServer`): nothing acked is lost when rowcastd is killed or the server
/// restarts, and `since` is answered from the history the store keeps.
@Suite(.serialized, .enabled(if: PostgreSQLTestServer.testsEnabled))
struct PostgreSQLStoreEndToEndTests {
    static let feed = "pg"

    /// The item ids in a snapshot reply, in order, repeats kept.
    static func rowIDs(_ snapshot: JSONValue) -> [String] {
        (snapshot["sections"]?.arrayValue ?? []).flatMap { section in
            (section["rows"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        }
    }

    /// The ids of the items whose upsert was acknowledged.
    static func ackedIDs(_ results: [AckedResult]) -> [String] {
        results.compactMap { result in
            guard case .success(let reply) = result.result, reply["ok"] == true else { return nil }
            return result.request["item"]?["id"]?.stringValue
        }
    }

    static func publisher(_ control: String) throws -> AckedPublisher {
        try AckedPublisher(
            endpoint: control,
            options: AckedPublisherOptions(
                window: 64, retryTimeout: .milliseconds(300), timeout: .seconds(60),
                connectTimeout: .milliseconds(200)))
    }

    static func upsert(_ id: String) -> JSONValue {
        ["op": "upsert", "feed": .string(feed), "item": DaemonEndToEndTests.product(id)]
    }

    @Test(
        "acked upserts through a SIGKILL of rowcastd: each is in the snapshot once, and since is answered from history after a restart",
        .timeLimit(.minutes(3)))
    func killAndRestart() throws {
        let url = try PostgreSQLTestServer.shared().makeDatabase()
        let plugins = try DaemonProcess.pluginDirectory()
        let endpoints = try FreePorts.endpoints()
        let arguments = ["--store", url]
        let daemon = Locked<DaemonProcess?>(
            try DaemonProcess(pluginDirectory: plugins, endpoints: endpoints, extraArguments: arguments))
        defer { daemon.get()?.stop() }
        let restartFailures = Locked<[String]>([])
        let killed = Locked(false)
        let killer = Thread {
            Thread.sleep(forTimeInterval: 0.5)
            daemon.update { process in
                process?.crash()
                process = nil
                do {
                    process = try DaemonProcess(
                        pluginDirectory: plugins, endpoints: endpoints, extraArguments: arguments)
                } catch {
                    restartFailures.update { $0.append("\(error)") }
                }
            }
            killed.set(true)
        }
        killer.start()

        let publisher = try Self.publisher(endpoints.1)
        var results: [AckedResult] = []
        var sent = 0
        while (!killed.get() || sent < 1500) && sent < 20_000 {
            try publisher.submit(Self.upsert("i\(sent)"))
            sent += 1
            results += publisher.takeResults()
        }
        try publisher.flush()
        results += publisher.takeResults()
        #expect(restartFailures.get().isEmpty, "\(restartFailures.get())")

        let acked = Self.ackedIDs(results)
        #expect(
            results.count == sent && acked.count == sent,
            "\(results.filter { Self.ackedIDs([$0]).isEmpty }.prefix(3).map(\.result))")
        let current = try #require(daemon.get())
        var peer = try RawPeer(current)
        let snapshot = try peer.request(["op": "snapshot", "feed": .string(Self.feed)])
        let ids = Self.rowIDs(snapshot)
        #expect(ids.count == Set(ids).count, "an item is in the snapshot twice")
        #expect(Set(ids) == Set(acked), "\(Set(acked).subtracting(ids).count) acked items missing\n\(current.log)")

        // After another SIGKILL, a subscriber 5 deltas behind resumes from the stored history.
        let seq = Int(snapshot["seq"]?.numberValue ?? 0)
        current.crash()
        let restarted = try DaemonProcess(pluginDirectory: plugins, endpoints: endpoints, extraArguments: arguments)
        daemon.set(restarted)
        peer = try RawPeer(restarted)
        let reply = try peer.request([
            "op": "since", "feed": .string(Self.feed), "epoch": snapshot["epoch"]!, "seq": .number(Double(seq - 5)),
        ])
        #expect(reply["covered"] == true, "\(reply)\n\(restarted.log)")
        let deltas = reply["deltas"]?.arrayValue ?? []
        #expect(deltas.map { Int($0["seq"]?.numberValue ?? 0) } == Array((seq - 4)...seq), "\(reply)")
    }

    @Test(
        "PostgreSQL restarted under acked load: writes get storage_error while it is down, rowcastd recovers by itself, nothing acked is lost",
        .timeLimit(.minutes(3)))
    func serverRestart() throws {
        let server = try PostgreSQLTestServer()
        defer { server.stop() }
        let url = try server.makeDatabase()
        let daemon = try DaemonProcess(extraArguments: ["--store", url])
        defer { daemon.stop() }
        let control = daemon.control

        // The load: acked upserts until told to stop.
        let stopLoad = Locked(false)
        let loadResults = Locked<[AckedResult]>([])
        let loadErrors = Locked<[String]>([])
        let loadDone = Locked(false)
        let loader = Thread {
            defer { loadDone.set(true) }
            do {
                let publisher = try Self.publisher(control)
                var sent = 0
                var results: [AckedResult] = []
                // At most 4,000 items, so that the snapshot checked at the end stays within
                // one reply's size limit whatever the machine's pace.
                while !stopLoad.get(), sent < 4000 {
                    try publisher.submit(Self.upsert("load-\(sent)"))
                    sent += 1
                    results += publisher.takeResults()
                    if sent % 16 == 0 { Thread.sleep(forTimeInterval: 0.01) }
                }
                try publisher.flush()
                results += publisher.takeResults()
                loadResults.set(results)
            } catch {
                loadErrors.update { $0.append("\(error)") }
            }
        }
        loader.start()
        Thread.sleep(forTimeInterval: 0.5)

        try server.stopServer(mode: "fast")
        let peer = try RawPeer(daemon)
        let refused = try peer.request(Self.upsert("while-down"))
        #expect(refused["ok"] == false && refused["error"]?["code"] == "storage_error", "\(refused)")
        #expect(refused["error"]?["message"]?.stringValue?.contains("PostgreSQL store") == true, "\(refused)")
        Thread.sleep(forTimeInterval: 1)
        #expect(daemon.waitForExit(timeout: 0) == nil, "rowcastd stopped while PostgreSQL was down\n\(daemon.log)")

        try server.start()
        var recovered = false
        let deadline = Date().addingTimeInterval(30)
        var attempt = 0
        while !recovered, Date() < deadline {
            attempt += 1
            recovered = try peer.request(Self.upsert("after-\(attempt)"))["ok"] == true
            if !recovered { Thread.sleep(forTimeInterval: 0.2) }
        }
        #expect(recovered, "no write was taken within 30 s of PostgreSQL's restart\n\(daemon.log)")
        Thread.sleep(forTimeInterval: 0.5)
        stopLoad.set(true)
        let loadDeadline = Date().addingTimeInterval(90)
        while !loadDone.get(), Date() < loadDeadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(loadDone.get() && loadErrors.get().isEmpty, "\(loadErrors.get())")

        let acked = Self.ackedIDs(loadResults.get()) + ["after-\(attempt)"]
        #expect(acked.count > 1)
        let snapshot = try peer.request(["op": "snapshot", "feed": .string(Self.feed)])
        #expect(snapshot["ok"] == true, "\(snapshot["error"] ?? .none)")
        let ids = Self.rowIDs(snapshot)
        #expect(ids.count == Set(ids).count, "an item is in the snapshot twice")
        #expect(Set(acked).isSubset(of: Set(ids)), "\(Set(acked).subtracting(ids).count) acked items missing")
        #expect(!ids.contains("while-down"))
        #expect(daemon.log.contains("storage_error") || daemon.log.contains("cannot be reached"), "\(daemon.log)")
    }

    @Test(
        "a store URL with a password exits 64 as an option and 78 in the configuration file, an unreachable server 69, each naming the problem"
    )
    func refusedAtStart() throws {
        let withPassword = try DaemonProcess(
            extraArguments: ["--store", "postgresql://rowcast:hunter2@127.0.0.1/rowcast"], waitForReady: false)
        defer { withPassword.stop() }
        #expect(withPassword.waitForExit(timeout: 20) == 64, "\(withPassword.log)")
        #expect(withPassword.log.contains("PGPASSWORD"), "\(withPassword.log)")
        #expect(!withPassword.log.contains("hunter2"), "\(withPassword.log)")

        let directory = try TemporaryDirectory("rowcast-config")
        let config = directory.path + "/rowcastd.yaml"
        try ServiceEndToEndTests.write("store: postgresql://rowcast:hunter2@127.0.0.1/rowcast\n", to: config)
        let configured = try DaemonProcess(extraArguments: ["--config", config], waitForReady: false)
        defer { configured.stop() }
        #expect(configured.waitForExit(timeout: 20) == 78, "\(configured.log)")
        #expect(configured.log.contains("PGPASSWORD") && configured.log.contains("store"), "\(configured.log)")

        let unreachable = "postgresql://postgres@127.0.0.1:1/rowcast"
        let down = try DaemonProcess(extraArguments: ["--store", unreachable], waitForReady: false)
        defer { down.stop() }
        #expect(down.waitForExit(timeout: 30) == 69, "\(down.log)")
        let line = down.log.split(separator: "\n").first { $0.hasPrefix("rowcastd: cannot start") }
        #expect(line?.contains(unreachable) == true && line?.contains("cannot be reached") == true, "\(down.log)")
    }

    @Test(
        "a database whose schema a newer rowcastd wrote is refused at start with exit 65, a single rowcastd and a node alike",
        .timeLimit(.minutes(2)))
    func newerSchemaRefused() throws {
        let server = try PostgreSQLTestServer.shared()
        let url = try server.makeDatabase()
        let first = try DaemonProcess(extraArguments: ["--store", url])
        first.stop()
        try server.execute("UPDATE rowcast.meta SET value = '99' WHERE key = 'schema'", url: url)
        for extra in [[], ["--node-name", "n1"]] {
            let newer = try DaemonProcess(extraArguments: ["--store", url] + extra, waitForReady: false)
            defer { newer.stop() }
            #expect(newer.waitForExit(timeout: 30) == 65, "\(newer.log)")
            let line = newer.log.split(separator: "\n").first { $0.hasPrefix("rowcastd: cannot start") }
            #expect(line?.contains("schema version 99") == true, "\(newer.log)")
        }
    }
}
