import RowCastEngine
import Testing

/// The pipeline's grouping and pacing rules on their own, with instants made up by the test:
/// no store, no thread, no sleep.
struct CommitScheduleTests {
    let start = ContinuousClock.now
    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }
    func ingest(_ messages: Int) -> CommitSchedule.Pending {
        CommitSchedule.Pending(messages: messages, waitedOn: false)
    }
    func request(_ messages: Int) -> CommitSchedule.Pending {
        CommitSchedule.Pending(messages: messages, waitedOn: true)
    }

    func paced(_ interval: Duration = .milliseconds(100), lastCommit: CommitSchedule.Pending? = nil) -> CommitSchedule {
        var schedule = CommitSchedule()
        schedule.interval = interval
        if let lastCommit { schedule.commitStarted(at: at(0), carrying: lastCommit) }
        return schedule
    }

    @Test("the first commit is never held back, nor anything without pacing")
    func nothingBeforeTheFirstCommit() {
        #expect(paced().commitDue(ingest(1), now: at(0)) == nil)
        #expect(paced().ingestHeldUntil(now: at(0)) == nil)
        var unpaced = CommitSchedule()
        unpaced.commitStarted(at: at(0), carrying: ingest(10))
        #expect(unpaced.commitDue(ingest(1), now: at(1)) == nil)
        #expect(unpaced.ingestHeldUntil(now: at(1)) == nil)
    }

    @Test("a trickle of ingest is due an interval after the last commit started, and at once from then on")
    func trickleWaitsForTheInterval() {
        let schedule = paced(lastCommit: ingest(1))
        #expect(schedule.commitDue(ingest(1), now: at(10)) == at(100))
        #expect(schedule.commitDue(ingest(31), now: at(99)) == at(100))
        #expect(schedule.commitDue(ingest(1), now: at(100)) == nil)
        #expect(schedule.commitDue(ingest(1), now: at(150)) == nil)
    }

    @Test("a batch a client waits on, or a flood's worth of ingest, is committed at once")
    func requestsAndFloodsAreNotPaced() {
        let schedule = paced(lastCommit: ingest(5))
        #expect(schedule.commitDue(request(1), now: at(10)) == nil)
        #expect(schedule.commitDue(ingest(CommitSchedule.pacedMessageLimit), now: at(10)) == nil)
        #expect(schedule.commitDue(ingest(CommitSchedule.pacedMessageLimit - 1), now: at(10)) == at(100))
    }

    @Test(
        "after a commit of three ingest messages or more, ingest is held until a fifth of the interval before the next commit"
    )
    func ingestHeldAfterAGatheringCommit() {
        #expect(paced(lastCommit: ingest(3)).ingestHeldUntil(now: at(10)) == at(80))
        #expect(paced(lastCommit: ingest(500)).ingestHeldUntil(now: at(79)) == at(80))
        #expect(paced(lastCommit: ingest(3)).ingestHeldUntil(now: at(80)) == nil, "that instant passed: read at once")
        #expect(paced(.seconds(1), lastCommit: ingest(3)).ingestHeldUntil(now: at(10)) == at(800))
    }

    @Test("no hold after a commit of one or two messages, or of a batch a client waited on")
    func noHoldAfterASlowTrickleOrARequest() {
        #expect(paced(lastCommit: ingest(1)).ingestHeldUntil(now: at(10)) == nil)
        #expect(paced(lastCommit: ingest(2)).ingestHeldUntil(now: at(10)) == nil)
        #expect(paced(lastCommit: request(40)).ingestHeldUntil(now: at(10)) == nil)
    }

    @Test("the latest commit decides: a request after a trickle ends the hold; ingest after it starts one again")
    func theLatestCommitDecides() {
        var schedule = paced(lastCommit: ingest(3))
        schedule.commitStarted(at: at(100), carrying: request(1))
        #expect(schedule.lastCommitStart == at(100) && schedule.lastIngestCommitMessages == 0)
        #expect(schedule.ingestHeldUntil(now: at(110)) == nil)
        schedule.commitStarted(at: at(200), carrying: ingest(4))
        #expect(schedule.lastIngestCommitMessages == 4)
        #expect(schedule.ingestHeldUntil(now: at(210)) == at(280))
        #expect(schedule.commitDue(ingest(1), now: at(210)) == at(300))
    }

    @Test(
        "under a backlog, ingest waits for the next batch up to the grouping limit; a batch a client waits on does not")
    func backlogGathersIngest() {
        #expect(CommitSchedule.holdsForBacklog(ingest(1_024), backlog: true))
        #expect(CommitSchedule.holdsForBacklog(ingest(CommitSchedule.groupedMessageLimit - 1), backlog: true))
        #expect(!CommitSchedule.holdsForBacklog(ingest(CommitSchedule.groupedMessageLimit), backlog: true))
        #expect(!CommitSchedule.holdsForBacklog(request(1), backlog: true))
        #expect(!CommitSchedule.holdsForBacklog(ingest(1_024), backlog: false))
    }

    @Test(
        "a commit is written on the loop's thread only when commits are sparse: idle at least as long as the last took")
    func sparseCommitsAreWrittenHere() {
        var schedule = CommitSchedule()
        #expect(schedule.writesHere(at: at(0)), "no commit yet")
        schedule.commitStarted(at: at(0), carrying: ingest(1))
        schedule.commitEnded(taking: .milliseconds(2))
        #expect(schedule.lastCommitDuration == .milliseconds(2))
        #expect(!schedule.writesHere(at: at(2)), "the last commit just ended: back to back")
        #expect(!schedule.writesHere(at: at(3)), "idle for half as long as it took")
        #expect(schedule.writesHere(at: at(4)), "idle for as long as it took")
        schedule.commitStarted(at: at(10), carrying: request(1))
        schedule.commitEnded(taking: .milliseconds(1))
        #expect(!schedule.writesHere(at: at(11)) && schedule.writesHere(at: at(12)), "the latest commit decides")
    }
}
