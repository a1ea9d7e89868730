import Foundation
import RowCastClient
import RowCastJSON
import RowCastWire
import Testing
import ZeroMQ

/// `rowcastd --engine-threads N`: several engine loops behind the same endpoints, each serving
/// the feeds of its partitions (docs/OPERATIONS.md, "Engine threads").
@Suite(.serialized)
struct EngineThreadsEndToEndTests {
    static let patience: TimeInterval = 60

    /// `count` feeds named `prefix-…`, spread so that each of `loops` loops serves some.
    static func feeds(_ count: Int, loops: Int, prefix: String) -> [String] {
        var byLoop: [[String]] = Array(repeating: [], count: loops)
        for index in 0..<10_000 where byLoop.map(\.count).min()! < (count + loops - 1) / loops {
            let feed = "\(prefix)-\(index)"
            let loop = Partition(feed: feed).index % loops
            if byLoop[loop].count < (count + loops - 1) / loops { byLoop[loop].append(feed) }
        }
        return Array(byLoop.flatMap { $0 }.prefix(count))
    }

    static func upsert(_ feed: String, id: String, price: Int) -> JSONValue {
        [
            "op": "upsert", "feed": .string(feed),
            "item": DaemonEndToEndTests.product(id, name: "\(feed) \(id)", price: Double(price)),
        ]
    }

    @Test(
        "feeds on different engine threads under concurrent acked load keep their order and gapless seq, and each replica ends equal to its snapshot",
        .timeLimit(.minutes(3)))
    func concurrentFeedsKeepTheirOrder() throws {
        let daemon = try DaemonProcess(extraArguments: ["--engine-threads", "3"])
        defer { daemon.stop() }
        let feeds = Self.feeds(6, loops: 3, prefix: "threads")
        #expect(Set(feeds.map { Partition(feed: $0).index % 3 }) == [0, 1, 2])
        // The first upsert creates each feed, so every replica starts from a snapshot.
        let peer = try RawPeer(daemon)
        for feed in feeds {
            #expect(try peer.request(Self.upsert(feed, id: "seed", price: 0))["ok"] == true)
        }
        let sessions = try feeds.map { feed in
            let session = try ReplicaSession(
                feed: feed, controlEndpoint: daemon.control, publishEndpoint: daemon.publish,
                timeout: .seconds(Int(Self.patience)))
            _ = try session.start()
            return session
        }

        // Three producers at once, each updating ten ids of two feeds (one on each of two
        // loops) with rising prices: the last price of each id must win in every feed.
        let rounds = 60
        let failures = Locked<[String]>([])
        let lastSeqs = Locked<[String: Int]>([:])
        let endpoint = daemon.control
        DispatchQueue.concurrentPerform(iterations: 3) { producer in
            do {
                let mine = [feeds[producer], feeds[producer + 3]]
                let publisher = try PostgreSQLStoreEndToEndTests.publisher(endpoint)
                var results: [AckedResult] = []
                for round in 1...rounds {
                    for feed in mine {
                        for id in 0..<10 {
                            _ = try publisher.submit(Self.upsert(feed, id: "i\(id)", price: round))
                        }
                    }
                    results += publisher.takeResults()
                }
                try publisher.flush()
                results += publisher.takeResults()
                var last: [String: Int] = [:]
                for result in results {
                    guard case .success(let reply) = result.result, reply["ok"] == true,
                        let feed = result.request["feed"]?.stringValue, let seq = reply["seq"]?.numberValue
                    else {
                        failures.update { $0.append("\(result.request): \(result.result)") }
                        continue
                    }
                    // One feed's acks never go back in seq.
                    if Int(seq) < last[feed] ?? 0 { failures.update { $0.append("\(feed) seq went back") } }
                    last[feed] = Int(seq)
                }
                lastSeqs.update { $0.merge(last) { max($0, $1) } }
            } catch {
                failures.update { $0.append("producer \(producer): \(error)") }
            }
        }
        #expect(failures.get().isEmpty, "\(failures.get().prefix(3))")

        let control = try ControlClient(endpoint: daemon.control, timeout: .seconds(10))
        for (feed, session) in zip(feeds, sessions) {
            let snapshot = try RawPeer(daemon).request(["op": "snapshot", "feed": .string(feed)])
            let seq = Int(snapshot["seq"]?.numberValue ?? -1)
            #expect(seq == lastSeqs.get()[feed], "\(feed)")
            let prices = (snapshot["sections"]?.arrayValue ?? []).flatMap { $0["rows"]?.arrayValue ?? [] }
                .filter { $0["id"]?.stringValue != "seed" }.map { $0["content"]?["price"]?.stringValue ?? "" }
            #expect(prices.count == 10, "\(feed): \(prices)")
            #expect(prices.allSatisfy { $0 == "$\(rounds)" }, "\(feed): \(prices)")
            try RelayEndToEndTests.follow(session, to: seq, seconds: Self.patience)
            // Every delta arrived in order: the replica never needed a resume or a new snapshot.
            #expect(session.resyncCount == 0 && session.resumeCount == 0, "\(feed)")
            let state = try FeedReplica(snapshot: try control.snapshot(feed: feed)).snapshotJSON
            #expect(session.replica?.snapshotJSON == state)
        }

        // `status` answers for every loop: all the feeds, in name order, their rows added up.
        let status = try peer.request(["op": "status"])
        let listed = (status["feeds"]?.arrayValue ?? []).compactMap { $0["feed"]?.stringValue }
        #expect(listed == feeds.sorted())
        #expect(status["feedCount"] == .number(Double(feeds.count)))
        #expect(status["endpoints"]?["control"]?.stringValue == daemon.control)
        #expect(status["pluginHosts"]?.arrayValue?.count == 3 * 2)
    }

    @Test(
        "SIGTERM answers what was read and stops cleanly; the state restarts on any number of threads with the same feeds, epochs and rows",
        .timeLimit(.minutes(3)))
    func stopAndRestartOnOtherThreadCounts() throws {
        let state = try TemporaryDirectory("rowcast-state")
        let plugins = try DaemonProcess.pluginDirectory(["librowcast-product.so", "librowcast-advertising.so"])
        let feeds = Self.feeds(8, loops: 4, prefix: "restart")
        var before: [String: JSONValue] = [:]
        do {
            let daemon = try DaemonProcess(
                pluginDirectory: plugins, stateDirectory: state, extraArguments: ["--engine-threads", "4"])
            defer { daemon.stop() }
            let peer = try RawPeer(daemon)
            for (index, feed) in feeds.enumerated() {
                for id in 0...index {
                    #expect(try peer.request(Self.upsert(feed, id: "i\(id)", price: index))["ok"] == true)
                }
            }
            // Fire-and-forget ingest too: committed before the stop ends.
            for feed in feeds { try peer.pushRaw(Array(Self.upsert(feed, id: "pushed", price: 7).serialized())) }
            try waitUntil("the pushed items are applied") {
                try feeds.allSatisfy { feed in
                    PostgreSQLStoreEndToEndTests.rowIDs(try peer.request(["op": "snapshot", "feed": .string(feed)]))
                        .contains("pushed")
                }
            }
            for feed in feeds {
                before[feed] = Self.withoutReq(try peer.request(["op": "snapshot", "feed": .string(feed)]))
            }
            daemon.signal(SIGTERM)
            #expect(daemon.waitForExit(timeout: 20) == 0, "\(daemon.log.suffix(2000))")
            #expect(daemon.log.contains("every engine loop answered what it read"))
        }
        for threads in ["2", "1", "3"] {
            let daemon = try DaemonProcess(
                pluginDirectory: plugins, stateDirectory: state, extraArguments: ["--engine-threads", threads])
            defer { daemon.stop() }
            #expect(daemon.log.contains("continuity=continued"), "threads \(threads): \(daemon.log.suffix(2000))")
            let peer = try RawPeer(daemon)
            for feed in feeds {
                let snapshot = Self.withoutReq(try peer.request(["op": "snapshot", "feed": .string(feed)]))
                #expect(snapshot == before[feed], "threads \(threads), \(feed)")
            }
            let status = try peer.request(["op": "status"])
            #expect(status["feedCount"] == .number(Double(feeds.count)), "threads \(threads)")
        }
    }

    @Test(
        "rowcastd killed with SIGKILL under acked load on three loops: every acked item is there after a restart on two",
        .timeLimit(.minutes(2)))
    func killedUnderLoadLosesNothingAcked() throws {
        let state = try TemporaryDirectory("rowcast-state")
        let plugins = try DaemonProcess.pluginDirectory(["librowcast-product.so", "librowcast-advertising.so"])
        let feeds = Self.feeds(6, loops: 3, prefix: "killed")
        var acked: [String: Set<String>] = [:]
        do {
            let daemon = try DaemonProcess(
                pluginDirectory: plugins, stateDirectory: state, extraArguments: ["--engine-threads", "3"])
            defer { daemon.stop() }
            let publisher = try PostgreSQLStoreEndToEndTests.publisher(daemon.control)
            func takeAcks() {
                for result in publisher.takeResults() {
                    guard case .success(let reply) = result.result, reply["ok"] == true,
                        let feed = result.request["feed"]?.stringValue,
                        let id = result.request["item"]?["id"]?.stringValue
                    else { continue }
                    acked[feed, default: []].insert(id)
                }
            }
            // Killed with up to a window of requests in flight.
            for index in 0..<450 {
                _ = try publisher.submit(Self.upsert(feeds[index % feeds.count], id: "i\(index)", price: index))
                takeAcks()
            }
            daemon.crash()
            takeAcks()
        }
        #expect(acked.values.reduce(0) { $0 + $1.count } > 100)
        let daemon = try DaemonProcess(
            pluginDirectory: plugins, stateDirectory: state, extraArguments: ["--engine-threads", "2"])
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        for feed in feeds {
            let ids = Set(
                PostgreSQLStoreEndToEndTests.rowIDs(try peer.request(["op": "snapshot", "feed": .string(feed)])))
            #expect(acked[feed, default: []].isSubset(of: ids), "\(feed): \(acked[feed, default: []].subtracting(ids))")
        }
    }

    @Test(
        "reload reaches every loop, requests without a feed are answered once, and a malformed request gets the error one loop gives",
        .timeLimit(.minutes(2)))
    func requestsForEveryLoop() throws {
        let daemon = try DaemonProcess(extraArguments: ["--engine-threads", "2"])
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        let feeds = Self.feeds(4, loops: 2, prefix: "every")
        for feed in feeds { #expect(try peer.request(Self.upsert(feed, id: "a", price: 1))["ok"] == true) }

        let reload = try peer.request(["op": "reload", "req": 7])
        #expect(reload["ok"] == true, "\(reload)")
        #expect(reload["req"] == 7)
        // Each loop reloaded on its own: RELOADING is logged once per loop.
        try waitUntil("both loops reloaded") {
            daemon.log.components(separatedBy: "reloading configuration and plugins").count - 1 == 2
        }
        let plugins = try peer.request(["op": "plugins", "req": "p"])
        #expect(plugins["ok"] == true)
        #expect(plugins["req"] == "p")
        let quarantine = try peer.request(["op": "quarantine"])
        #expect(quarantine["items"] == .array([]))

        // A DEALER without the empty delimiter gets its reply without one, through the front.
        let context = try Context()
        let dealer = try Socket(context: context, type: .dealer)
        defer { dealer.close() }
        try dealer.setOption(.linger, 0)
        try dealer.setOption(.receiveTimeout, 10_000)
        try dealer.connect(daemon.control)
        _ = try dealer.send([Array(#"{"op":"status","req":1}"#.utf8)])
        let frames = try dealer.receiveMultipart() ?? []
        #expect(frames.count == 1)
        #expect(String(decoding: frames.last ?? [], as: UTF8.self).contains("\"feedCount\":4"))
        let malformed = try peer.requestText("{not json")
        #expect(malformed.contains("\"invalid_json\"") || malformed.contains("\"malformed\""), "\(malformed)")
        // A feed name no partition takes is answered by the first loop, as one rowcastd answers it.
        let badName = try peer.requestText(#"{"op":"snapshot","feed":"no such feed!"}"#)
        #expect(badName.contains("\"ok\":false") && badName.contains("\"feed\""), "\(badName)")
    }

    @Test(
        "a reset in parts on two loops at once: each feed's parts go to its loop, and each reset replaces only its feed",
        .timeLimit(.minutes(2)))
    func resetsInPartsOnTwoLoops() throws {
        let daemon = try DaemonProcess(plugins: ["librowcast-product.so"], extraArguments: ["--engine-threads", "2"])
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        let feeds = Self.feeds(2, loops: 2, prefix: "reset")
        for feed in feeds { #expect(try peer.request(Self.upsert(feed, id: "old", price: 1))["ok"] == true) }
        var tokens: [String: JSONValue] = [:]
        for feed in feeds {
            tokens[feed] = try #require(try peer.request(["op": "reset_begin", "feed": .string(feed)])["reset"])
        }
        // The parts of the two resets interleave.
        for part in 0..<3 {
            for feed in feeds {
                let reply = try peer.request([
                    "op": "reset_append", "feed": .string(feed), "reset": tokens[feed]!, "part": .number(Double(part)),
                    "items": [DaemonEndToEndTests.product("\(feed)-\(part)")],
                ])
                // The items staged so far, by this feed's reset alone.
                #expect(reply["items"] == .number(Double(part + 1)), "\(reply)")
            }
        }
        for feed in feeds {
            let committed = try peer.request(["op": "reset_commit", "feed": .string(feed), "reset": tokens[feed]!])
            #expect(committed["ok"] == true, "\(committed)")
            let snapshot = try peer.request(["op": "snapshot", "feed": .string(feed)])
            #expect(PostgreSQLStoreEndToEndTests.rowIDs(snapshot).sorted() == (0..<3).map { "\(feed)-\($0)" })
        }
    }

    @Test(
        "a plugin that crashes on one loop costs that item and that loop's host only: the other loop's host renders on, unrestarted",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(2)))
    func pluginCrashStaysInItsLoop() throws {
        let plugins = try FaultPlugin.directory()
        let daemon = try DaemonProcess(
            pluginDirectory: plugins,
            extraArguments: ["--engine-threads", "2"] + PluginFaultEndToEndTests.isolation(timeoutMilliseconds: 3000))
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        let feeds = Self.feeds(2, loops: 2, prefix: "crash")
        func upsert(_ feed: String, _ id: String) throws -> JSONValue {
            try peer.request(["op": "upsert", "feed": .string(feed), "item": PluginFaultEndToEndTests.item(id)])
        }
        for feed in feeds { #expect(try upsert(feed, "good-1")["ok"] == true) }
        let before = try peer.request(["op": "status"])["pluginHosts"]?.arrayValue ?? []
        #expect(before.count == 2)

        // The fixture crashes on the id "segv": on the first loop's feed.
        let crashed = try upsert(feeds[0], "segv")
        #expect(crashed["error"]?["code"] == "plugin_crashed", "\(crashed)")
        for feed in feeds { #expect(try upsert(feed, "good-2")["ok"] == true) }

        let after = try peer.request(["op": "status"])["pluginHosts"]?.arrayValue ?? []
        #expect(after.count == 2)
        // Hosts are listed loop by loop: the first loop's host was replaced, the second's was not.
        #expect(after.first?["restarts"] == 1, "\(after)")
        #expect(after.last?["restarts"] == 0, "\(after)")
        #expect(after.last?["pid"] == before.last?["pid"])
        let quarantine = try peer.request(["op": "quarantine"])["items"]?.arrayValue ?? []
        #expect(quarantine.map { $0["id"]?.stringValue } == ["segv"])
        #expect(quarantine.first?["feed"]?.stringValue == feeds[0])
        #expect(daemon.process.isRunning)
    }

    @Test(
        "a cluster node with several engine threads still needs a PostgreSQL store; a count out of range is refused; both name the setting"
    )
    func refusedCombinations() throws {
        let cluster = try runRowcastdToExit(["--engine-threads", "2", "--node-name", "a"])
        #expect(cluster.status == 78)
        #expect(cluster.stderr.contains("node_name"), "\(cluster.stderr)")
        #expect(cluster.stderr.contains("PostgreSQL"), "\(cluster.stderr)")
        let range = try runRowcastdToExit(["--engine-threads", "0"])
        #expect(range.status != 0)
        #expect(range.stderr.contains("--engine-threads"), "\(range.stderr)")
    }

    /// A reply without its `req`, which the peer numbers itself.
    static func withoutReq(_ reply: JSONValue) -> JSONValue {
        guard var object = reply.objectValue else { return reply }
        object["req"] = nil
        return .object(object)
    }

    private func waitUntil(_ what: String, _ condition: () throws -> Bool) throws {
        try EndToEndTests.waitUntil(what, seconds: Self.patience, condition)
    }
}
