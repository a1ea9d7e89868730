@testable import RowCastDaemon
import Testing

/// The loop's decisions with made-up instants: no socket, no engine, no sleep.
struct LoopStateMachineTests {
    let start = ContinuousClock.now
    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    func machine(batchLimit: Int = 1_024, heartbeat: Int = 1_000) -> LoopStateMachine {
        LoopStateMachine(
            settings: LoopStateMachine.Settings(
                batchLimit: batchLimit, heartbeat: .milliseconds(heartbeat), controlRequestsPerPass: 256),
            now: at(0))
    }

    let idle = LoopStateMachine.Pipeline(
        isCommitting: false, holdsForBacklog: false, commitDue: nil, ingestHeldUntil: nil)
    let committing = LoopStateMachine.Pipeline(
        isCommitting: true, holdsForBacklog: false, commitDue: nil, ingestHeldUntil: nil)
    let quiet = LoopStateMachine.Deadlines(watchdog: nil, positionTick: nil, snapshotsBusy: false)

    func held(until milliseconds: Int) -> LoopStateMachine.Pipeline {
        LoopStateMachine.Pipeline(
            isCommitting: false, holdsForBacklog: false, commitDue: nil, ingestHeldUntil: at(milliseconds))
    }

    @Test("while a commit is written the pass does not wait and reads every socket")
    func overlapsTheCommit() {
        var wait: LoopStateMachine.Wait
        var reads: LoopStateMachine.Reads
        var loop = machine()
        wait = loop.passBegan(at: at(10), pipeline: committing, deadlines: quiet)
        #expect(wait == .none)
        reads = loop.waitEnded(at: at(10), ingestReadable: false, controlReadable: false)
        #expect(reads == .init(ingest: true, control: true))
    }

    @Test("while background work waits (rows restored stale), an idle pass does not wait")
    func backgroundWorkDoesNotWait() {
        var loop = machine(heartbeat: 1_000)
        let busy = LoopStateMachine.Deadlines(
            watchdog: nil, positionTick: nil, snapshotsBusy: false, backgroundWork: true)
        #expect(
            loop.passBegan(at: at(0), pipeline: idle, deadlines: busy)
                == .poll(milliseconds: 0, watchesIngest: true, holdUntil: nil))
        #expect(
            loop.passBegan(at: at(0), pipeline: idle, deadlines: quiet)
                == .poll(milliseconds: 100, watchesIngest: true, holdUntil: nil))
    }

    @Test("an idle loop waits for the heartbeat at most 100 ms at a time, watching ingest")
    func idleWait() {
        var wait: LoopStateMachine.Wait
        var loop = machine(heartbeat: 1_000)
        wait = loop.passBegan(at: at(0), pipeline: idle, deadlines: quiet)
        #expect(wait == .poll(milliseconds: 100, watchesIngest: true, holdUntil: nil))
        wait = loop.passBegan(at: at(950), pipeline: idle, deadlines: quiet)
        #expect(wait == .poll(milliseconds: 50, watchesIngest: true, holdUntil: nil))
        wait = loop.passBegan(at: at(1_200), pipeline: idle, deadlines: quiet)
        #expect(wait == .poll(milliseconds: 0, watchesIngest: true, holdUntil: nil))
    }

    @Test(
        "the wait ends at the earliest deadline: watchdog, paced commit, position tick, or 1 ms while snapshots are written; rounded up"
    )
    func earliestDeadline() {
        var wait: LoopStateMachine.Wait
        var loop = machine()
        let due = LoopStateMachine.Pipeline(
            isCommitting: false, holdsForBacklog: false, commitDue: at(7) + .microseconds(200), ingestHeldUntil: nil)
        wait = loop.passBegan(at: at(0), pipeline: due, deadlines: quiet)
        #expect(wait == .poll(milliseconds: 8, watchesIngest: true, holdUntil: nil))
        let watchdog = LoopStateMachine.Deadlines(watchdog: .milliseconds(3), positionTick: nil, snapshotsBusy: false)
        wait = loop.passBegan(at: at(0), pipeline: due, deadlines: watchdog)
        #expect(wait == .poll(milliseconds: 3, watchesIngest: true, holdUntil: nil))
        let tick = LoopStateMachine.Deadlines(watchdog: nil, positionTick: at(2), snapshotsBusy: false)
        wait = loop.passBegan(at: at(0), pipeline: due, deadlines: tick)
        #expect(wait == .poll(milliseconds: 2, watchesIngest: true, holdUntil: nil))
        let snapshots = LoopStateMachine.Deadlines(watchdog: nil, positionTick: nil, snapshotsBusy: true)
        wait = loop.passBegan(at: at(0), pipeline: idle, deadlines: snapshots)
        #expect(wait == .poll(milliseconds: 1, watchesIngest: true, holdUntil: nil))
    }

    @Test("batches held for a backlog look for the next batch without waiting")
    func backlogDoesNotWait() {
        var loop = machine()
        let backlog = LoopStateMachine.Pipeline(
            isCommitting: false, holdsForBacklog: true, commitDue: at(50), ingestHeldUntil: nil)
        let wait = loop.passBegan(at: at(0), pipeline: backlog, deadlines: quiet)
        #expect(wait == .poll(milliseconds: 0, watchesIngest: true, holdUntil: nil))
    }

    @Test(
        "ingest found during a hold is left unread, then no longer watched, and read when the hold ends even if the wait saw nothing"
    )
    func holdsIngest() {
        var wait: LoopStateMachine.Wait
        var reads: LoopStateMachine.Reads
        var backlog: Bool
        var loop = machine()
        // The hold applies, but nothing waited yet: ingest is watched, the wait ends at the heartbeat's bound.
        wait = loop.passBegan(at: at(0), pipeline: held(until: 80), deadlines: quiet)
        #expect(wait == .poll(milliseconds: 100, watchesIngest: true, holdUntil: nil))
        reads = loop.waitEnded(at: at(5), ingestReadable: true, controlReadable: false)
        #expect(reads == .init(ingest: false, control: false))
        #expect(loop.ingestWaiting)
        backlog = loop.batchRead(messages: 0, readIngest: false)
        #expect(!backlog)
        // Now ingest waits: the socket is no longer watched and the pacing timer ends the wait at the hold's end.
        wait = loop.passBegan(at: at(6), pipeline: held(until: 80), deadlines: quiet)
        #expect(wait == .poll(milliseconds: 74, watchesIngest: false, holdUntil: at(80)))
        reads = loop.waitEnded(at: at(40), ingestReadable: false, controlReadable: true)
        #expect(
            reads == .init(ingest: false, control: true),
            "control requests are never held")
        wait = loop.passBegan(at: at(41), pipeline: held(until: 80), deadlines: quiet)
        #expect(wait == .poll(milliseconds: 39, watchesIngest: false, holdUntil: at(80)))
        reads = loop.waitEnded(at: at(80), ingestReadable: false, controlReadable: false)
        #expect(reads == .init(ingest: true, control: false))
        backlog = loop.batchRead(messages: 3, readIngest: true)
        #expect(!backlog)
        #expect(!loop.ingestWaiting)
    }

    @Test("without a hold, ingest is read when the wait found it, and only then")
    func readsWhatTheWaitFound() {
        var reads: LoopStateMachine.Reads
        var loop = machine()
        _ = loop.passBegan(at: at(0), pipeline: idle, deadlines: quiet)
        reads = loop.waitEnded(at: at(1), ingestReadable: true, controlReadable: false)
        #expect(reads == .init(ingest: true, control: false))
        _ = loop.passBegan(at: at(2), pipeline: idle, deadlines: quiet)
        reads = loop.waitEnded(at: at(3), ingestReadable: false, controlReadable: false)
        #expect(reads == .init(ingest: false, control: false))
    }

    @Test(
        "a commit in flight ends the hold's effect on reads: ingest found while held is read in the next pass that does not wait"
    )
    func commitInFlightReadsEverything() {
        var wait: LoopStateMachine.Wait
        var reads: LoopStateMachine.Reads
        var loop = machine()
        _ = loop.passBegan(at: at(0), pipeline: held(until: 80), deadlines: quiet)
        _ = loop.waitEnded(at: at(1), ingestReadable: true, controlReadable: false)
        #expect(loop.ingestWaiting)
        wait = loop.passBegan(at: at(2), pipeline: committing, deadlines: quiet)
        #expect(wait == .none)
        reads = loop.waitEnded(at: at(2), ingestReadable: false, controlReadable: false)
        #expect(reads == .init(ingest: true, control: true))
        _ = loop.batchRead(messages: 1, readIngest: true)
        #expect(!loop.ingestWaiting)
    }

    @Test("a full batch is a backlog, collected without waiting for the commit in flight; a short one is not")
    func fullBatchIsABacklog() {
        var backlog: Bool
        var loop = machine(batchLimit: 4)
        backlog = loop.batchRead(messages: 4, readIngest: true)
        #expect(backlog)
        #expect(loop.collect(backlog: true) == .finished)
        backlog = loop.batchRead(messages: 3, readIngest: true)
        #expect(!backlog)
        #expect(loop.collect(backlog: false) == .committed)
    }

    @Test("a heartbeat is due once nothing was published for an interval; publishing puts it off")
    func heartbeat() {
        var wait: LoopStateMachine.Wait
        var loop = machine(heartbeat: 1_000)
        #expect(!loop.heartbeatDue(at: at(999)))
        #expect(loop.heartbeatDue(at: at(1_000)))
        loop.published(at: at(1_000))
        #expect(!loop.heartbeatDue(at: at(1_500)))
        wait = loop.passBegan(at: at(1_950), pipeline: idle, deadlines: quiet)
        #expect(wait == .poll(milliseconds: 50, watchesIngest: true, holdUntil: nil))
        #expect(loop.heartbeatDue(at: at(2_000)))
    }

    @Test(
        "a loop that sends no heartbeats (engine loops after the first) never finds one due, and still waits when idle")
    func loopWithoutHeartbeats() {
        var loop = machine(heartbeat: 200)
        loop.settings.sendsHeartbeats = false
        // Long past the interval, nothing published: a loop that had to send a heartbeat would
        // stop waiting; this one waits its longest, pass after pass.
        for pass in 1...3 {
            let now = at(pass * 10_000)
            #expect(!loop.heartbeatDue(at: now))
            let wait = loop.passBegan(at: now, pipeline: idle, deadlines: quiet)
            #expect(wait == .poll(milliseconds: 100, watchesIngest: true, holdUntil: nil))
            _ = loop.waitEnded(at: now, ingestReadable: false, controlReadable: false)
        }
        var first = LoopStateMachine.Settings(DaemonConfiguration())
        #expect(first.sendsHeartbeats)
        first = LoopStateMachine.Settings(DaemonConfiguration(), slot: nil)
        #expect(first.sendsHeartbeats)
    }

    @Test("control requests wait while a pass's worth of snapshot replies is being written")
    func snapshotBackpressure() {
        let loop = machine()
        #expect(!loop.waitsForSnapshots(inFlight: 255))
        #expect(loop.waitsForSnapshots(inFlight: 256))
    }

    @Test("a reload's settings are the ones the next pass decides by")
    func reloadedSettings() {
        var wait: LoopStateMachine.Wait
        var backlog: Bool
        var loop = machine(heartbeat: 1_000)
        loop.settings.heartbeat = .milliseconds(20)
        wait = loop.passBegan(at: at(5), pipeline: idle, deadlines: quiet)
        #expect(wait == .poll(milliseconds: 15, watchesIngest: true, holdUntil: nil))
        loop.settings.batchLimit = 2
        backlog = loop.batchRead(messages: 2, readIngest: true)
        #expect(backlog)
    }
}
