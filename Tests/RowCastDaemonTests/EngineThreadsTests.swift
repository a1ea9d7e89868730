import Foundation
import RowCastEngine
import RowCastJSON
import RowCastWire
import Testing
import ZeroMQ

@testable import RowCastDaemon

/// The pieces of several engine loops that need no process: who serves which partition, the
/// front's header, the merged replies, the connection a request behind the front came on.
struct EngineThreadsTests {
    @Test("the loops' partitions cover every partition exactly once", arguments: [1, 2, 3, 8, 64])
    func partitionsCoverAll(loops: Int) {
        let sets = (0..<loops).map { EngineLoopSlot.partitions(of: $0, count: loops) }
        #expect(sets.reduce(0) { $0 + $1.count } == Partition.count)
        #expect(sets.reduce(Set<Partition>()) { $0.union($1) }.count == Partition.count)
        for (index, partitions) in sets.enumerated() {
            #expect(partitions.allSatisfy { EngineLoopSlot.loop(serving: $0, count: loops) == index })
        }
    }

    @Test("the front's header reads back what it wrote, and nothing else reads as one")
    func headerRoundTrip() {
        for header in [
            FrontHeader(delimited: true, fanOut: 0), FrontHeader(delimited: false, fanOut: 1),
            FrontHeader(delimited: true, fanOut: .max), FrontHeader(delimited: false, fanOut: 0x0102_0304_0506_0708),
            FrontHeader(delimited: true, fanOut: 3, userID: "alice"),
            FrontHeader(delimited: false, fanOut: 0, userID: "é"),
        ] {
            #expect(FrontHeader(bytes: header.bytes) == header)
        }
        #expect(FrontHeader(bytes: []) == nil)
        #expect(FrontHeader(bytes: Array("identity!".utf8)) == nil)
        #expect(FrontHeader(bytes: [0x64] + Array(repeating: 0, count: 7)) == nil)
    }

    @Test("a request behind the front comes on its client's connection, whatever loop and fan-out carry it")
    func connectionBehindFront() {
        let direct = ControlEnvelope(frames: [Array("client-1".utf8), [], Array("{}".utf8)])
        let undelimited = ControlEnvelope(frames: [Array("client-1".utf8), Array("{}".utf8)])
        let behind = ControlEnvelope(frames: [
            Array("dealer-a".utf8), FrontHeader(delimited: true, fanOut: 0).bytes, Array("client-1".utf8), [],
            Array("{}".utf8),
        ])
        let fanOut = ControlEnvelope(frames: [
            Array("dealer-b".utf8), FrontHeader(delimited: false, fanOut: 9).bytes, Array("client-1".utf8), [],
            Array("{}".utf8),
        ])
        let other = ControlEnvelope(frames: [
            Array("dealer-a".utf8), FrontHeader(delimited: true, fanOut: 0).bytes, Array("client-2".utf8), [],
            Array("{}".utf8),
        ])
        #expect(direct.connection == undelimited.connection)
        #expect(behind.connection == direct.connection)
        #expect(fanOut.connection == direct.connection)
        #expect(other.connection != direct.connection)
        #expect(behind.body == Array("{}".utf8))
        #expect(behind.frontUserID == nil)
        #expect(direct.frontUserID == nil)
    }

    @Test("with CURVE the front names the client: in the control header, and in a first frame of an ingest message")
    func clientNamedBehindFront() {
        let named = ControlEnvelope(frames: [
            Array("dealer-a".utf8), FrontHeader(delimited: true, fanOut: 0, userID: "alice").bytes,
            Array("client-1".utf8), [], Array("{}".utf8),
        ])
        #expect(named.frontUserID == "alice")
        #expect(named.body == Array("{}".utf8))
        #expect(named.connection == ControlEnvelope(frames: [Array("client-1".utf8), [], Array("{}".utf8)]).connection)

        let body = Array(#"{"op":"upsert"}"#.utf8)
        let second = ForwardedClient.frame(publicKey: String(repeating: "k", count: 40))
        for (frames, userID) in [([body], "alice"), ([body, second], "bob"), ([body, [1], [2]], nil)] {
            let wrapped = FrontIngestFrames.wrap(frames, userID: userID)
            let frame = FrontIngestFrames.unwrap(
                ReceivedMessage(frames: wrapped, sizes: wrapped.map(\.count)),
                secondLimit: ForwardedClient.maximumFrameBytes)
            #expect(frame.bytes == body)
            #expect(frame.size == body.count)
            #expect(frame.frameCount == frames.count)
            #expect(frame.second == (frames.count > 1 ? frames[1] : []))
            #expect(Daemon.principal(frame.property) == userID)
        }
    }

    @Test(
        "with CURVE a merged status takes the front's connection and subscription counts, and adds up the loops' refused client frames"
    )
    func curveCountsMerged() throws {
        func reply(_ refusedClientFrames: Int) -> [UInt8] {
            let object: JSONValue = [
                "ok": true, "op": "status",
                "curve": [
                    "clients": ["alice"], "admitted": 0, "refused": 0, "refusedSubscriptions": 0,
                    "refusedClientFrames": .number(Double(refusedClientFrames)),
                ],
            ]
            return object.serialized()
        }
        let merged = try JSONParser.parse(
            FanOutReplies.merge(
                op: "status", [reply(1), reply(2)], endpoints: [:],
                curveCounts: ["admitted": 4, "refused": 5, "refusedSubscriptions": 6]))
        #expect(merged["curve"]?["clients"] == ["alice"])
        #expect(merged["curve"]?["admitted"] == 4)
        #expect(merged["curve"]?["refused"] == 5)
        #expect(merged["curve"]?["refusedSubscriptions"] == 6)
        #expect(merged["curve"]?["refusedClientFrames"] == 3)
    }

    static func status(_ feeds: [String], more next: String? = nil, stored: Int, hosts: Int) -> [UInt8] {
        var object: JSONObject = [
            "ok": true, "op": "status", "endpoints": ["control": "inproc://rowcastd-loop-0-control"],
            "protocol": 1, "storedBytes": .number(Double(stored)), "feedCount": .number(Double(feeds.count)),
        ]
        if let next {
            object["more"] = true
            object["next"] = .string(next)
        }
        object["feeds"] = .array(feeds.map { ["feed": .string($0), "seq": 1] })
        object["plugins"] = 2
        object["quarantined"] = 1
        object["pluginHosts"] = .array((0..<hosts).map { _ in ["plugin": "product"] })
        object["counters"] = ["received": 10, "applied": 5]
        object["req"] = 7
        return JSONValue.object(object).serialized()
    }

    @Test("a cluster node's status from every loop: the node's cluster member once, with every loop's forwarding")
    func mergedClusterStatus() throws {
        func status(_ forwarding: Int) -> [UInt8] {
            let cluster: JSONValue = [
                "node": "n1", "held": [["partition": 0, "token": 4]], "unowned": 0,
                "forwarding": .number(Double(forwarding)),
            ]
            return (["ok": true, "op": "status", "feeds": [], "cluster": cluster, "req": 1] as JSONValue).serialized()
        }
        let merged = try JSONParser.parse(
            FanOutReplies.merge(op: "status", [status(2), status(0), status(3)], endpoints: .null))
        #expect(merged["cluster"]?["forwarding"] == 5)
        #expect(merged["cluster"]?["node"] == "n1")
        #expect(merged["cluster"]?["held"]?.arrayValue?.count == 1)
        #expect(merged["cluster"]?["unowned"] == 0)
        let alone = try JSONParser.parse(
            FanOutReplies.merge(
                op: "status", [Self.status(["a"], stored: 1, hosts: 1), Self.status(["b"], stored: 1, hosts: 1)],
                endpoints: .null))
        #expect(alone["cluster"] == nil)
    }

    @Test("status from every loop: counts added, feeds in name order, a page ending where the first full page ended")
    func mergedStatus() throws {
        let endpoints: JSONValue = ["control": "tcp://127.0.0.1:7702"]
        let merged = try JSONParser.parse(
            FanOutReplies.merge(
                op: "status",
                [
                    Self.status(["b", "d", "f"], more: "f", stored: 100, hosts: 2),
                    Self.status(["a", "c", "e", "g"], stored: 50, hosts: 2),
                    Self.status(["bb", "h"], more: "h", stored: 1, hosts: 1),
                ], endpoints: endpoints))
        #expect(merged["ok"] == true)
        #expect(merged["req"] == 7)
        #expect(merged["endpoints"] == endpoints)
        #expect(merged["feedCount"] == 9)
        #expect(merged["engineThreads"] == 3)
        #expect(merged["storedBytes"] == 151)
        #expect(merged["plugins"] == 2)
        #expect(merged["quarantined"] == 3)
        #expect(merged["pluginHosts"]?.arrayValue?.count == 5)
        #expect(merged["counters"] == ["received": 30, "applied": 15])
        // Loop 0 stopped at "f": nothing after it is listed yet, and the next page starts there.
        #expect(
            merged["feeds"]?.arrayValue?.compactMap { $0["feed"]?.stringValue } == ["a", "b", "bb", "c", "d", "e", "f"])
        #expect(merged["more"] == true)
        #expect(merged["next"] == "f")
        #expect(merged.objectValue?.keys.last == "req")
        // `req` and `client` come back byte for byte, last, as the request wrote them.
        let exact = Array(#"{"ok":true,"op":"status","feeds":[],"req":"c\u00e9-7","client":"p\"x"}"#.utf8)
        let reply = FanOutReplies.merge(op: "status", [exact, exact], endpoints: endpoints)
        #expect(String(decoding: reply, as: UTF8.self).hasSuffix(#","req":"c\u00e9-7","client":"p\"x"}"#))
        #expect(try JSONParser.parse(reply)["engineThreads"] == 2)

        let last = try JSONParser.parse(
            FanOutReplies.merge(
                op: "status", [Self.status(["x"], stored: 1, hosts: 1), Self.status([], stored: 1, hosts: 1)],
                endpoints: endpoints))
        #expect(last["more"] == .none)
        #expect(last["next"] == .none)
    }

    @Test(
        "reload from every loop: the first loop's decision, every loop's re-rendered feeds, and each plugin file only some loops refused, per loop"
    )
    func mergedReload() throws {
        func reply(rerendered: [String], refused: [String]) -> [UInt8] {
            let object: JSONValue = [
                "ok": true, "op": "reload", "applied": ["limits.max_items_per_feed"], "restartRequired": [],
                "refusals": .array(
                    refused.map {
                        ["file": .string($0), "code": "host_failed", "reason": .string("no host for \($0)")]
                    }),
                "rerendered": .array(rerendered.map { ["feed": .string($0), "seq": 2] }), "req": 9,
            ]
            return object.serialized()
        }
        let merged = try JSONParser.parse(
            FanOutReplies.merge(
                op: "reload",
                [
                    reply(rerendered: ["d", "b"], refused: ["/p/broken.so"]),
                    reply(rerendered: ["a"], refused: ["/p/broken.so", "/p/flaky.so"]),
                    reply(rerendered: [], refused: ["/p/broken.so"]),
                ], endpoints: .null))
        #expect(merged["ok"] == true)
        #expect(merged["req"] == 9)
        #expect(merged["applied"] == ["limits.max_items_per_feed"])
        #expect(merged["rerendered"]?.arrayValue?.compactMap { $0["feed"]?.stringValue } == ["a", "b", "d"])
        // Refused by every loop: an ordinary refusal, in `refusals`. Refused by loop 1 only: named.
        #expect(merged["refusals"]?.arrayValue?.count == 1)
        #expect(
            merged["refusedInSomeLoops"] == [
                ["loop": 1, "file": "/p/flaky.so", "code": "host_failed", "reason": "no host for /p/flaky.so"]
            ])

        let agreed = try JSONParser.parse(
            FanOutReplies.merge(
                op: "reload", [reply(rerendered: [], refused: []), reply(rerendered: [], refused: [])],
                endpoints: .null))
        #expect(agreed["refusedInSomeLoops"] == [])
        // A failed reload fails alike in every loop: the one error, as one loop sends it.
        let failure = Array(#"{"ok":false,"op":"reload","error":{"code":"reload_failed","message":"m"}}"#.utf8)
        #expect(FanOutReplies.merge(op: "reload", [failure, failure, failure], endpoints: .null) == failure)
    }

    @Test("a merged status page stays within half of max_message_bytes, and its next continues it")
    func mergedPageBudget() throws {
        func reply(_ names: [String]) -> [UInt8] {
            var object: JSONObject = ["ok": true, "op": "status", "limits": ["max_message_bytes": 2_000]]
            object["feeds"] = .array(names.map { ["feed": .string($0), "epoch": "e"] })
            object["counters"] = ["dropped": 1]
            return JSONValue.object(object).serialized()
        }
        // A feed takes 123 bytes of the 1,000 budget: each loop's page of 5 fits, the 10 together
        // do not, and the merged page stops after 8.
        let merged = try JSONParser.parse(
            FanOutReplies.merge(
                op: "status", [reply(["a", "c", "e", "g", "i"]), reply(["b", "d", "f", "h", "j"])], endpoints: .null,
                frontDropped: 3))
        let listed = merged["feeds"]?.arrayValue?.compactMap { $0["feed"]?.stringValue } ?? []
        #expect(listed == ["a", "b", "c", "d", "e", "f", "g", "h"])
        #expect(merged["more"] == true)
        #expect(merged["next"] == "h")
        #expect(merged["counters"]?["dropped"] == 5)
    }

    @Test("answers recorded by several loops take ranks from one counter, above what each loaded")
    func sharedLedgerOrder() {
        let order = LedgerOrder()
        var first = RequestLedger()
        var second = RequestLedger(entries: [
            LedgerEntry(key: LedgerKey(client: "c", req: "old"), order: 41, reply: Array("{}".utf8))
        ])
        first.sharedOrder = order
        second.sharedOrder = order
        first.record(LedgerKey(client: "c", req: "1"), reply: Array("{}".utf8))
        second.record(LedgerKey(client: "c", req: "2"), reply: Array("{}".utf8))
        first.record(LedgerKey(client: "c", req: "3"), reply: Array("{}".utf8))
        let ranks = (first.takeChanges().recorded + second.takeChanges().recorded).map(\.order).sorted()
        #expect(ranks == [1, 42, 43])
    }

    @Test("a loop's failure is the reply; quarantine lists join")
    func failuresAndQuarantine() throws {
        let failure = Array(#"{"ok":false,"op":"reload","error":{"code":"plugin_error","message":"x"}}"#.utf8)
        let success = Array(#"{"ok":true,"op":"reload","plugins":1}"#.utf8)
        #expect(FanOutReplies.merge(op: "reload", [success, failure], endpoints: .null) == failure)
        let reloaded = try JSONParser.parse(FanOutReplies.merge(op: "reload", [success, success], endpoints: .null))
        #expect(reloaded == ["ok": true, "op": "reload", "plugins": 1, "refusedInSomeLoops": []])
        let first = Array(#"{"ok":true,"op":"quarantine","retried":1,"items":[{"feed":"a"}]}"#.utf8)
        let second = Array(#"{"ok":true,"op":"quarantine","retried":2,"items":[{"feed":"b"},{"feed":"c"}]}"#.utf8)
        let merged = try JSONParser.parse(FanOutReplies.merge(op: "quarantine", [first, second], endpoints: .null))
        #expect(merged["retried"] == 3)
        #expect(merged["items"]?.arrayValue?.count == 3)
        #expect(FanOutReplies.goesToEveryLoop(op: "quarantine", namesFeed: false))
        #expect(!FanOutReplies.goesToEveryLoop(op: "quarantine", namesFeed: true))
        #expect(FanOutReplies.goesToEveryLoop(op: "status", namesFeed: false))
        #expect(!FanOutReplies.goesToEveryLoop(op: "plugins", namesFeed: false))
    }

    @Test("more than one engine thread runs with CURVE and on a cluster node, whose store must be PostgreSQL")
    func allowedCombinations() {
        var configuration = DaemonConfiguration()
        configuration.engineThreads = 2
        #expect(throws: Never.self) { try ClusterRules.check(configuration, file: nil) }
        configuration.curve = true
        #expect(throws: Never.self) { try ClusterRules.check(configuration, file: nil) }
        configuration.nodeName = "a"
        #expect(throws: ConfigurationError.self) { try ClusterRules.check(configuration, file: nil) }
        configuration.store = "postgresql://u@127.0.0.1:5432/d"
        #expect(throws: Never.self) { try ClusterRules.check(configuration, file: nil) }
        configuration.curve = false
        configuration.engineThreads = 16
        #expect(throws: Never.self) { try ClusterRules.check(configuration, file: nil) }
    }
}
