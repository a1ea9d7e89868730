import Foundation
import RowCastClient
import RowCastJSON
import Testing

/// `position` events (docs/PROTOCOL.md, "Positions") as a replica meets them: a replica that
/// missed the last delta catches up without another change, and one connected to a daemon that
/// restarts into a new epoch resyncs as soon as it reconnects.
@Suite(.serialized)
struct PositionEndToEndTests {
    /// The next event of `session` that is not a plain message, within `seconds`.
    static func nextEvent(_ session: ReplicaSession, seconds: Int = 10) throws -> ReplicaEvent {
        let deadline = Date().addingTimeInterval(TimeInterval(seconds))
        while Date() < deadline {
            guard let event = try session.next(timeout: .milliseconds(200)) else { continue }
            if case .message = event { continue }
            return event
        }
        throw TestFailure("no replica event within \(seconds) s")
    }

    @Test(
        "a replica that misses the last delta learns it from the position that follows and resumes from the daemon's history, with no further change"
    )
    func missedLastDelta() throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let session = try ReplicaSession(feed: "cars", controlEndpoint: daemon.control, publishEndpoint: daemon.publish)
        try session.start()
        let peer = try RawPeer(daemon)
        #expect(
            try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("1")])["seq"] == 1)
        guard case .applied(let first, _) = try Self.nextEvent(session) else {
            throw TestFailure("the first delta was not applied")
        }
        #expect(first.seq == 1)

        // The second delta is taken off the socket behind the session's back: it is lost.
        #expect(
            try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("2")])["seq"] == 2)
        var lost: SubscriberMessage?
        let deadline = Date().addingTimeInterval(10)
        while lost == nil, Date() < deadline {
            if let message = try session.subscriber.receive(timeout: .milliseconds(200)), message.topic == "rows.cars",
                message.body["event"] == "delta"
            {
                lost = message
            }
        }
        #expect(lost?.body["seq"] == 2)
        #expect(session.replica?.seq == 1)

        // Nothing else is published; the position (within a heartbeat interval, 200 ms here)
        // shows the gap.
        guard case .resynced(let replica, let reason) = try Self.nextEvent(session) else {
            throw TestFailure("no resync")
        }
        #expect(reason.kind == .gap, "\(reason)")
        // Resumed from the daemon's history (since), not reloaded from a snapshot.
        #expect(session.resumeCount == 1)
        #expect(replica.seq == 2)
        #expect(replica.snapshotJSON["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.count == 2)
    }

    @Test(
        "a daemon that restarts into a new epoch (a simulated reboot) makes a connected replica resync at once, with no change to the feed",
        .enabled(if: BootContinuityEndToEndTests.namespacesPermitted, "unshare -m -T is not permitted here"),
        .timeLimit(.minutes(2)))
    func newEpochAfterRestart() throws {
        let ports = try FreePorts.take(3)
        let endpoints = ("tcp://127.0.0.1:\(ports[0])", "tcp://127.0.0.1:\(ports[1])", "tcp://127.0.0.1:\(ports[2])")
        let plugins = try DaemonProcess.pluginDirectory()
        let state = try TemporaryDirectory("rowcast-state")
        var daemon = try DaemonProcess(
            pluginDirectory: plugins, stateDirectory: state, endpoints: endpoints,
            launcher: BootContinuityEndToEndTests.subsetProc)
        for id in ["1", "2"] {
            _ = try RawPeer(daemon).request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product(id)])
        }
        let session = try ReplicaSession(feed: "cars", controlEndpoint: endpoints.1, publishEndpoint: endpoints.2)
        let loaded = try session.start()
        let epoch = try #require(loaded.epoch)

        daemon.crash()
        daemon = try DaemonProcess(
            pluginDirectory: plugins, stateDirectory: state, endpoints: endpoints,
            launcher: BootContinuityEndToEndTests.subsetProcRebooted)
        defer { daemon.stop() }
        guard case .resynced(let replica, let reason) = try Self.nextEvent(session, seconds: 20) else {
            throw TestFailure("no resync")
        }
        #expect(reason.kind == .epochChanged, "\(reason)")
        #expect(replica.epoch != epoch)
        #expect(replica.seq == 2)
        #expect(replica.snapshotJSON["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.count == 2)
    }
}
