import Foundation
import RowCastClient
import RowCastJSON
import RowCastTesting
import Testing

/// Nothing acknowledged is lost: a windowed acked publisher keeps sending while rowcastd is
/// killed with SIGKILL at random moments and restarted on the same ports and state, and a
/// subscriber keeps a replica through it all.
@Suite(.serialized)
struct CrashEndToEndTests {
    static let feed = "crash"
    static let kills = 12
    static let seed: UInt64 = 0x5EED_0004

    /// What the subscriber thread saw.
    struct ReplicaReport: Sendable {
        var replica: JSONValue?
        var observations: [(epoch: String, seq: Int, how: String)] = []
        var resyncs = 0
        var errors: [String] = []
    }

    @Test(
        "every acked request is applied once, in order, through 12 SIGKILLs; seq never goes back; the replica ends identical",
        .timeLimit(.minutes(3)))
    func crashAndRestart() throws {
        let plugins = try DaemonProcess.pluginDirectory()
        let state = try TemporaryDirectory("rowcast-crash-state")
        let endpoints = try FreePorts.endpoints()
        // No HTTP: the kernel's pick for an HTTP port 0, bound before the ZeroMQ sockets, was
        // once the fixed control port of the run before a restart.
        let noHTTP = ["--http", ""]
        let daemon = Locked<DaemonProcess?>(
            try DaemonProcess(
                pluginDirectory: plugins, stateDirectory: state, endpoints: endpoints, extraArguments: noHTTP))
        let killerDone = Locked(false)
        let stopReplica = Locked(false)
        let targetSeq = Locked<Int?>(nil)
        let replicaReport = Locked(ReplicaReport())
        let restartFailures = Locked<[String]>([])
        let started = Date()

        // The killer: SIGKILL at a random moment, restart on the same ports and state.
        let killer = Thread {
            var random = SplitMix64(state: Self.seed ^ 0xC0FFEE)
            for cycle in 1...Self.kills {
                Thread.sleep(forTimeInterval: Double.random(in: 0.25...0.9, using: &random))
                daemon.update { process in
                    process?.crash()
                    process = nil
                    do {
                        process = try DaemonProcess(
                            pluginDirectory: plugins, stateDirectory: state, endpoints: endpoints,
                            extraArguments: noHTTP)
                    } catch {
                        restartFailures.update { $0.append("restart \(cycle): \(error)") }
                    }
                }
            }
            killerDone.set(true)
        }

        // The subscriber: a replica through every restart.
        let subscriber = Thread {
            var report = ReplicaReport()
            defer { replicaReport.set(report) }
            let session: ReplicaSession
            do {
                session = try ReplicaSession(
                    feed: Self.feed, controlEndpoint: endpoints.1, publishEndpoint: endpoints.2, timeout: .seconds(2))
            } catch {
                report.errors.append("session: \(error)")
                return
            }
            let giveUp = Date().addingTimeInterval(150)
            var quietSince = Date()
            while Date() < giveUp {
                if stopReplica.get(), let target = targetSeq.get() {
                    if let replica = session.replica, replica.seq >= target { break }
                    // Behind the final seq with nothing arriving: the last deltas were lost
                    // while reconnecting, which no later delta will reveal. Resync.
                    if Date().timeIntervalSince(quietSince) > 1 {
                        quietSince = Date()
                        report.resyncs += 1
                        if let replica = try? session.reload(), let epoch = replica.epoch {
                            report.observations.append((epoch, replica.seq, "reload"))
                        }
                        continue
                    }
                }
                do {
                    guard let event = try session.next(timeout: .milliseconds(100)) else { continue }
                    quietSince = Date()
                    switch event {
                    case .loaded(let replica):
                        if let epoch = replica.epoch { report.observations.append((epoch, replica.seq, "snapshot")) }
                    case .applied(let replica, _):
                        report.observations.append((replica.epoch ?? "", replica.seq, "delta"))
                    case .resynced(let replica, _):
                        report.resyncs += 1
                        if let epoch = replica.epoch { report.observations.append((epoch, replica.seq, "resync")) }
                    case .message:
                        break
                    }
                } catch {
                    report.errors.append("\(error)")
                }
            }
            report.replica = session.replica?.snapshotJSON
        }

        killer.start()
        subscriber.start()

        // The publisher: acked requests, 64 in flight, retried after 300 ms without an answer.
        let options = AckedPublisherOptions(
            window: 64, retryTimeout: .milliseconds(300), timeout: .seconds(60), connectTimeout: .milliseconds(200))
        let publisher = try AckedPublisher(endpoint: endpoints.1, options: options)
        var generator = RequestGenerator(feed: Self.feed, seed: Self.seed)
        var sent: [JSONValue] = []
        var results: [AckedResult] = []
        while !killerDone.get() || sent.count < 3000 {
            let request = generator.next()
            sent.append(request)
            try publisher.submit(request)
            results += publisher.takeResults()
            if sent.count >= 60_000 { break }
        }
        try publisher.flush()
        results += publisher.takeResults()
        killer.cancel()
        while !killerDone.get() { Thread.sleep(forTimeInterval: 0.05) }
        #expect(restartFailures.get().isEmpty, "\(restartFailures.get())")

        // Every request got an answer, and each answer is the one the rules give when the
        // requests apply once each, in order.
        #expect(results.count == sent.count)
        var model = FeedModel()
        var mismatches: [String] = []
        var epochs: Set<String> = []
        var lastSeq = 0
        var retried = 0
        for (index, result) in results.enumerated() {
            #expect(result.number == index + 1)
            if result.attempts > 1 { retried += 1 }
            let expected = model.apply(sent[index])
            switch result.result {
            case .success(let reply):
                if expected != nil {
                    mismatches.append("req \(result.number) \(sent[index]["op"]!): ok, expected \(expected!)")
                }
                if let epoch = reply["epoch"]?.stringValue { epochs.insert(epoch) }
                let seq = reply["seq"]?.intValue ?? -1
                if seq < lastSeq { mismatches.append("req \(result.number): seq \(seq) after \(lastSeq)") }
                lastSeq = max(lastSeq, seq)
            case .failure(let error):
                if expected != error.code {
                    mismatches.append(
                        "req \(result.number) \(sent[index]["op"]!): \(error.code), expected \(expected ?? "ok"): \(error.message)"
                    )
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
        #expect(epochs.count == 1, "acks came in epochs \(epochs)")
        #expect(publisher.reconnects >= Self.kills / 2, "the publisher reconnected \(publisher.reconnects) times")

        // The final snapshot holds every acked item once, with its last content.
        let control = try ControlClient(endpoint: endpoints.1, timeout: .seconds(10))
        let snapshot = try control.snapshot(feed: Self.feed)
        #expect(model.differences(from: snapshot).isEmpty, "\(model.differences(from: snapshot).prefix(10))")
        #expect(snapshot["seq"]?.intValue == lastSeq)

        // The replica caught up and equals the snapshot; seq never went back within an epoch.
        targetSeq.set(snapshot["seq"]?.intValue)
        stopReplica.set(true)
        while !subscriber.isFinished { Thread.sleep(forTimeInterval: 0.05) }
        let report = replicaReport.get()
        let expected = JSONValue.object([
            "feed": snapshot["feed"]!, "seq": snapshot["seq"]!, "epoch": snapshot["epoch"]!,
            "sections": snapshot["sections"]!,
        ])
        let identical = report.replica == expected
        #expect(
            identical,
            "replica at seq \(report.replica?["seq"] ?? "none") differs from the snapshot at seq \(snapshot["seq"]!); errors: \(report.errors.prefix(5))"
        )
        var highest: [String: Int] = [:]
        for observation in report.observations {
            #expect(
                observation.seq >= highest[observation.epoch] ?? 0,
                "seq \(observation.seq) (\(observation.how)) after \(highest[observation.epoch] ?? 0) in epoch \(observation.epoch)"
            )
            highest[observation.epoch] = max(highest[observation.epoch] ?? 0, observation.seq)
        }
        daemon.update { $0?.stop() }
        print(
            "crash test: \(sent.count) requests, \(Self.kills) SIGKILLs, \(retried) retried, \(publisher.reconnects) reconnects, final seq \(lastSeq), \(model.items.count) items, replica resyncs \(report.resyncs), \(String(format: "%.1f", Date().timeIntervalSince(started))) s"
        )
    }
}
