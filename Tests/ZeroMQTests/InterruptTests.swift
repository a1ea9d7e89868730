#if os(Linux)
import Foundation
import Glibc
import Synchronization
import Testing
import ZeroMQ

/// How many SIGUSR2 signals the test handler has run for.
private let signalsHandled = Atomic<Int>(0)

/// Installs a SIGUSR2 handler without SA_RESTART, so a blocked libzmq call sees EINTR.
private func installSignalHandler() {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in signalsHandled.add(1, ordering: .relaxed) }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    sigaction(SIGUSR2, &action, nil)
}

/// What the blocked thread reports back to the test.
private struct ThreadState: Sendable {
    /// The blocked thread, to signal.
    var thread: pthread_t?
    /// True just before the thread enters the blocking call.
    var blocking = false
    /// What the blocking call returned or threw.
    var outcome: Result<[UInt8]?, ZeroMQError>?
    /// Set by the test once it has stopped signalling; the thread exits only then.
    var released = false
}

/// Thread state shared between the test and the thread it starts.
private final class Shared: Sendable {
    /// Guarded by its own lock.
    let state = Mutex(ThreadState())

    /// Reads the state under the lock.
    func read<T: Sendable>(_ body: (ThreadState) -> T) -> T { state.withLock { body($0) } }
}

/// Repeats `condition` every millisecond up to ten seconds; true once it holds.
private func waitUntil(_ condition: () -> Bool) -> Bool {
    for _ in 0..<10_000 {
        if condition() { return true }
        usleep(1_000)
    }
    return condition()
}

/// Sends SIGUSR2 to `thread` `times` times, each after the previous one was handled (pending
/// signals would merge); false if one was not handled within ten seconds.
private func interrupt(_ thread: pthread_t, times: Int) -> Bool {
    for _ in 0..<times {
        let before = signalsHandled.load(ordering: .relaxed)
        pthread_kill(thread, SIGUSR2)
        guard waitUntil({ signalsHandled.load(ordering: .relaxed) > before }) else { return false }
    }
    return true
}

/// Runs `body` on a new thread and records its outcome; the thread then waits for release.
private func startThread(_ shared: Shared, _ body: @escaping @Sendable () throws(ZeroMQError) -> [UInt8]?) {
    let thread = Thread {
        // The test runner may start threads with signals blocked; this one must take SIGUSR2.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGUSR2)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        shared.state.withLock { $0.thread = pthread_self() }
        let outcome: Result<[UInt8]?, ZeroMQError>
        do throws(ZeroMQError) {
            outcome = .success(try body())
        } catch {
            outcome = .failure(error)
        }
        shared.state.withLock { $0.outcome = outcome }
        _ = waitUntil { shared.read(\.released) }
    }
    thread.start()
}

@Suite("Signals interrupting blocking calls", .serialized)
struct InterruptTests {
    @Test("a blocking receive is retried after EINTR and returns the message")
    func receiveRetries() throws {
        installSignalHandler()
        let context = try Context()
        let shared = Shared()
        startThread(shared) { () throws(ZeroMQError) -> [UInt8]? in
            let pull = try Socket(context: context, type: .pull)
            defer { pull.close() }
            try pull.setOption(.linger, 0)
            try pull.setOption(.receiveTimeout, 60_000)
            try pull.bind("inproc://interrupted-receive")
            shared.state.withLock { $0.blocking = true }
            return try pull.receive()
        }
        defer { shared.state.withLock { $0.released = true } }
        try #require(waitUntil { shared.read(\.blocking) })
        let thread = try #require(shared.read(\.thread))

        #expect(interrupt(thread, times: 5))
        #expect(shared.read { $0.outcome == nil }, "receive returned while no message had been sent")

        let push = try openSocket(context, .push)
        defer { push.close() }
        try push.connect("inproc://interrupted-receive")
        #expect(try push.send(bytes("after signals")))
        if !waitUntil({ shared.read { $0.outcome != nil } }) {
            context.shutdown()  // frees the thread; the expectation below then fails
            _ = waitUntil { shared.read { $0.outcome != nil } }
        }
        #expect(shared.read(\.outcome) == .success(bytes("after signals")))
    }

    @Test("a blocking send is retried after EINTR and delivers the message")
    func sendRetries() throws {
        installSignalHandler()
        let context = try Context()
        let shared = Shared()
        startThread(shared) { () throws(ZeroMQError) -> [UInt8]? in
            let push = try Socket(context: context, type: .push)
            defer { push.close() }
            try push.setOption(.linger, 0)
            try push.setOption(.sendTimeout, 60_000)
            try push.bind("inproc://interrupted-send")
            shared.state.withLock { $0.blocking = true }
            return try push.send(bytes("sent through signals")) ? [1] : [0]
        }
        defer { shared.state.withLock { $0.released = true } }
        try #require(waitUntil { shared.read(\.blocking) })
        let thread = try #require(shared.read(\.thread))

        #expect(interrupt(thread, times: 5))
        #expect(shared.read { $0.outcome == nil }, "send returned while the PUSH socket had no peer")

        let pull = try openSocket(context, .pull)
        defer { pull.close() }
        try pull.connect("inproc://interrupted-send")
        #expect(try pull.receive() == bytes("sent through signals"))
        if !waitUntil({ shared.read { $0.outcome != nil } }) {
            context.shutdown()
            _ = waitUntil { shared.read { $0.outcome != nil } }
        }
        #expect(shared.read(\.outcome) == .success([1]))
    }

    @Test("a poll interrupted by a signal returns 0 instead of throwing")
    func pollReturnsEmpty() throws {
        installSignalHandler()
        let context = try Context()
        let shared = Shared()
        startThread(shared) { () throws(ZeroMQError) -> [UInt8]? in
            let pull = try Socket(context: context, type: .pull)
            defer { pull.close() }
            try pull.setOption(.linger, 0)
            try pull.bind("inproc://interrupted-poll")
            let poller = Poller()
            poller.register(pull)
            shared.state.withLock { $0.blocking = true }
            let ready = try poller.poll(timeoutMilliseconds: 60_000)
            return [UInt8(ready), poller.isReadable(pull) ? 1 : 0]
        }
        defer { shared.state.withLock { $0.released = true } }
        try #require(waitUntil { shared.read(\.blocking) })
        let thread = try #require(shared.read(\.thread))

        // Signal until the poll returns; the thread stays alive until released.
        let returned = waitUntil {
            if shared.read({ $0.outcome != nil }) { return true }
            pthread_kill(thread, SIGUSR2)
            return false
        }
        if !returned {
            context.shutdown()  // the poll ignored the signals; free the thread and fail below
            _ = waitUntil { shared.read { $0.outcome != nil } }
        }
        #expect(returned, "poll did not return when signalled")
        #expect(shared.read(\.outcome) == .success([0, 0]))
    }
}
#endif
