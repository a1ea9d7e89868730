import RowCastClient
import RowCastJSON
import Testing

/// The Clone pattern against a fake daemon whose snapshots and deltas the test scripts.
@Suite struct ReplicaSessionTests {
    typealias F = Fixture

    /// A fake daemon that answers `snapshot` with `state` (and publishes `beforeSnapshot`
    /// first), `since` with `history` (by default: not covered), and a session on it whose
    /// subscription is known to be live.
    struct Setup {
        let daemon: FakeDaemon
        let session: ReplicaSession
        let state: Shared<JSONValue>
        let beforeSnapshot: Shared<[(String, JSONValue)]>
        let history: Shared<[JSONValue]?>

        init(initial: JSONValue) throws {
            let state = Shared(initial)
            let beforeSnapshot = Shared<[(String, JSONValue)]>([])
            let history = Shared<[JSONValue]?>(nil)
            daemon = try FakeDaemon { request in
                if request["op"] == "since" {
                    guard let deltas = history.value else {
                        return FakeDaemon.Response(replies: [
                            okReply(to: request, ["covered": false, "reason": "gone"])
                        ])
                    }
                    return FakeDaemon.Response(replies: [
                        okReply(to: request, ["covered": true, "deltas": .array(deltas)])
                    ])
                }
                guard request["op"] == "snapshot" else { return FakeDaemon.Response() }
                guard case .object(let snapshot) = state.value else { return FakeDaemon.Response() }
                let first = beforeSnapshot.value
                beforeSnapshot.value = []
                return FakeDaemon.Response(publishFirst: first, replies: [okReply(to: request, snapshot)])
            }
            self.state = state
            self.beforeSnapshot = beforeSnapshot
            self.history = history
            session = try ReplicaSession(
                feed: "cars", controlEndpoint: daemon.control, publishEndpoint: daemon.publish,
                timeout: .seconds(10))
        }

        /// Starts the session and waits until a heartbeat shows its subscriptions are live.
        func start() throws -> FeedReplica {
            let replica = try session.start()
            try session.subscribe(.heartbeat)
            daemon.setHeartbeating(true)
            defer { daemon.setHeartbeating(false) }
            while let event = try session.next(timeout: .seconds(10)) {
                if case .message(let message) = event, message.topic == "heartbeat" { return replica }
            }
            throw FakeDaemonError("no heartbeat reached the session")
        }

        /// The next event that is not a heartbeat (nil after 10 s of nothing else).
        func nextEvent() throws -> ReplicaEvent? {
            while let event = try session.next(timeout: .seconds(10)) {
                if case .message(let message) = event, message.topic == "heartbeat" { continue }
                return event
            }
            return nil
        }
    }

    /// The snapshot reply members for `sections` at `seq`.
    static func snapshot(seq: Int, epoch: String = F.epoch, _ sections: [JSONValue]) -> JSONValue {
        F.snapshotReply(seq: seq, epoch: epoch, sections: sections)
    }

    @Test func appliesDeltasAfterTheSnapshot() throws {
        let setup = try Setup(initial: Self.snapshot(seq: 3, [F.section("A", ["a"])]))
        defer { setup.daemon.stop() }
        let loaded = try setup.start()
        #expect(loaded.seq == 3)
        var stale = DeltaBuilder(seq: 3)
        stale.deleteRow("nope", at: (7, 7))
        var next = DeltaBuilder(seq: 4)
        next.insertRow("b", at: (0, 1))
        setup.daemon.publish("rows.cars", stale.json)
        setup.daemon.publish("rows.cars", next.json)
        guard case .applied(let replica, let delta) = try setup.nextEvent() else {
            Issue.record("expected the delta with seq 4 to be applied")
            return
        }
        #expect(delta == next.json)
        #expect(replica.snapshotJSON == F.state(seq: 4, sections: [F.section("A", ["a", "b"])]))
        #expect(setup.session.replica == replica)
        #expect(setup.session.resyncCount == 0)
    }

    @Test func aGapIsResumedFromTheDaemonsHistoryWhenItStillHoldsTheMissedDeltas() throws {
        let setup = try Setup(initial: Self.snapshot(seq: 1, [F.section("A", ["a"])]))
        defer { setup.daemon.stop() }
        _ = try setup.start()
        var two = DeltaBuilder(seq: 2)
        two.insertRow("b", at: (0, 1))
        var three = DeltaBuilder(seq: 3)
        three.insertRow("c", at: (0, 2))
        setup.history.value = [two.json, three.json]
        // Seq 2 was lost; 3 arrives and shows the gap.
        setup.daemon.publish("rows.cars", three.json)
        guard case .resynced(let resumed, let reason) = try setup.nextEvent() else {
            Issue.record("expected a resync")
            return
        }
        #expect(reason.kind == .gap)
        #expect(resumed.snapshotJSON == F.state(seq: 3, sections: [F.section("A", ["a", "b", "c"])]))
        #expect(setup.session.resumeCount == 1)
        #expect(setup.session.resyncCount == 1)
        #expect(
            setup.daemon.requests.filter { $0["op"] == "snapshot" }.count == 1, "only the first load took a snapshot")
    }

    @Test func aGapResyncsFromAFreshSnapshotAndKeepsTheDeltasThatFollowIt() throws {
        let setup = try Setup(initial: Self.snapshot(seq: 1, [F.section("A", ["a"])]))
        defer { setup.daemon.stop() }
        _ = try setup.start()
        // The daemon moved on to seq 5; the subscriber saw only seq 3 (2 was lost).
        setup.state.value = Self.snapshot(seq: 5, [F.section("A", ["a", "b", "c"])])
        var six = DeltaBuilder(seq: 6)
        six.deleteRow("a", at: (0, 0))
        var older = DeltaBuilder(seq: 4)
        older.deleteRow("zzz", at: (9, 9))
        // Published while the snapshot is being taken: one it includes, one it does not.
        setup.beforeSnapshot.value = [("rows.cars", older.json), ("rows.cars", six.json)]
        var three = DeltaBuilder(seq: 3)
        three.insertRow("c", at: (0, 1))
        setup.daemon.publish("rows.cars", three.json)

        guard case .resynced(let reloaded, let reason) = try setup.nextEvent() else {
            Issue.record("expected a resync")
            return
        }
        #expect(reason.kind == .gap)
        #expect(reloaded.snapshotJSON == F.state(seq: 5, sections: [F.section("A", ["a", "b", "c"])]))
        #expect(setup.session.resyncCount == 1)
        guard case .applied(let replica, _) = try setup.nextEvent() else {
            Issue.record("expected the buffered delta with seq 6 to be applied")
            return
        }
        #expect(replica.snapshotJSON == F.state(seq: 6, sections: [F.section("A", ["b", "c"])]))
    }

    @Test func aDeltaThatDoesNotFitResyncs() throws {
        let setup = try Setup(initial: Self.snapshot(seq: 2, [F.section("A", ["a", "b"])]))
        defer { setup.daemon.stop() }
        _ = try setup.start()
        setup.state.value = Self.snapshot(seq: 3, [F.section("A", ["b"])])
        var wrong = DeltaBuilder(seq: 3)
        wrong.deleteRow("a", at: (0, 1))  // "a" is at [0,0]
        setup.daemon.publish("rows.cars", wrong.json)
        guard case .resynced(let replica, let reason) = try setup.nextEvent() else {
            Issue.record("expected a resync")
            return
        }
        #expect(reason.kind == .idMismatch)
        #expect(replica.snapshotJSON == F.state(seq: 3, sections: [F.section("A", ["b"])]))
    }

    @Test func anotherEpochResyncs() throws {
        let setup = try Setup(initial: Self.snapshot(seq: 9, [F.section("A", ["a"])]))
        defer { setup.daemon.stop() }
        _ = try setup.start()
        setup.state.value = Self.snapshot(seq: 1, epoch: "e2", [F.section("B", ["x"])])
        var restarted = DeltaBuilder(seq: 1)
        restarted.epoch = "e2"
        restarted.insertSection("B", at: 0, rows: ["x"])
        setup.daemon.publish("rows.cars", restarted.json)
        guard case .resynced(let replica, let reason) = try setup.nextEvent() else {
            Issue.record("expected a resync")
            return
        }
        #expect(reason.kind == .epochChanged)
        #expect(replica.epoch == "e2" && replica.seq == 1)
        #expect(setup.session.replica?.sections.map(\.id) == ["B"])
    }

    @Test func eventsOfOtherTopicsArePassedOn() throws {
        let setup = try Setup(initial: Self.snapshot(seq: 0, epoch: "unused", []))
        defer { setup.daemon.stop() }
        try setup.session.subscribe(.errors("cars"))
        _ = try setup.start()
        let error: JSONValue = [
            "event": "error", "code": "unknown_type", "message": "no plugin for type boat", "feed": "cars",
        ]
        setup.daemon.publish("errors.cars", error)
        guard case .message(let message) = try setup.nextEvent() else {
            Issue.record("expected the error event")
            return
        }
        #expect(message == SubscriberMessage(topic: "errors.cars", body: error))
    }

    @Test func aSnapshotThatNeverComesIsATimeout() throws {
        let daemon = try FakeDaemon()
        defer { daemon.stop() }
        let session = try ReplicaSession(
            feed: "cars", controlEndpoint: daemon.control, publishEndpoint: daemon.publish,
            timeout: .milliseconds(100))
        let error = #expect(throws: RowCastClientError.self) { try session.start() }
        #expect(error?.code == "timeout")
        #expect(session.replica == nil)
    }
}
