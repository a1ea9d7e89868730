import NIOCore
@testable import RowCastHTTP
import Testing

/// One HTTP connection's deadlines and head limit, driven by hand with an injected clock: a head
/// must arrive within the header timeout (from the connection's start, or from a later head's
/// first byte), whatever trickles in; a head over the limit is refused; a kept-alive connection
/// closes when idle; a client that takes no data is reset; nothing bounds a stream that is read.
@Suite("HTTP connection state")
struct HTTPConnectionStateTests {
    let limits = HTTPConnectionLimits(
        headerTimeout: .seconds(1), idleTimeout: .seconds(5), writeTimeout: .seconds(2), maxHeadBytes: 100)

    func at(_ seconds: Double) -> NIODeadline { .uptimeNanoseconds(UInt64(1_000_000_000 + seconds * 1e9)) }

    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("a head that trickles in is answered 408 at the deadline counted from the connection's start")
    func slowHead() {
        let state = ConnectionStateDriver(limits: limits, openedAt: at(0))
        #expect(state.deadline == at(1))
        for (index, byte) in "GET / HTTP/1.1\r\n".utf8.enumerated() {
            #expect(state.received([byte], at: at(Double(index) * 0.05)) == .forward)
        }
        #expect(state.deadline == at(1), "bytes do not move the deadline")
        #expect(state.timerFired(at: at(0.999)) == .none)
        #expect(state.timerFired(at: at(1)) == .answerTimeout)
        #expect(state.phase == .lingering(until: at(3)))
        #expect(state.received(bytes("Host: a\r\n\r\n"), at: at(1.5)) == .discard)
        #expect(state.timerFired(at: at(3)) == .close)
    }

    @Test("a connection that sends nothing is closed at the deadline without an answer")
    func silent() {
        let state = ConnectionStateDriver(limits: limits, openedAt: at(0))
        #expect(state.timerFired(at: at(1)) == .closeSilent)
        #expect(state.phase == .closed)
        #expect(state.deadline == nil)
    }

    @Test("a whole head stops the deadline; answered, the connection idles; a later head has its own deadline")
    func keepAlive() {
        let state = ConnectionStateDriver(limits: limits, openedAt: at(0))
        #expect(state.received(bytes("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), at: at(0.5)) == .forward)
        #expect(state.phase == .exchanging)
        #expect(state.deadline == nil, "a request being answered (a stream, say) has no deadline")
        state.headDecoded()
        state.exchangesFinished(at: at(30))
        #expect(state.phase == .idle(since: at(30)))
        #expect(state.deadline == at(35))
        #expect(state.received(bytes("GET / HT"), at: at(34)) == .forward)
        #expect(state.deadline == at(35), "the next head's deadline runs from its first byte")
        #expect(state.timerFired(at: at(35)) == .answerTimeout)
    }

    @Test("an idle kept-alive connection closes at the idle timeout")
    func idle() {
        let state = ConnectionStateDriver(limits: limits, openedAt: at(0))
        _ = state.received(bytes("GET / HTTP/1.1\r\n\r\n"), at: at(0))
        state.exchangesFinished(at: at(1))
        #expect(state.timerFired(at: at(5.9)) == .none)
        #expect(state.timerFired(at: at(6)) == .closeIdle)
    }

    @Test("a head over the limit is refused, whole or in pieces; one at the limit is not")
    func tooLarge() {
        let state = ConnectionStateDriver(limits: limits, openedAt: at(0))
        #expect(state.received(bytes(String(repeating: "a", count: 101)), at: at(0)) == .refuseTooLarge)
        #expect(state.phase == .lingering(until: at(2)))

        let pieces = ConnectionStateDriver(limits: limits, openedAt: at(0))
        for _ in 0..<10 {
            #expect(pieces.received(bytes(String(repeating: "a", count: 10)), at: at(0)) == .forward)
        }
        #expect(pieces.received(bytes("a"), at: at(0)) == .refuseTooLarge)

        let exact = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 100 - 23) + "\r\n\r\n"
        #expect(exact.utf8.count == 100)
        let atLimit = ConnectionStateDriver(limits: limits, openedAt: at(0))
        #expect(atLimit.received(bytes(exact + String(repeating: "b", count: 500)), at: at(0)) == .forward)
        #expect(atLimit.phase == .exchanging, "the body after the head does not count")
    }

    @Test("a head the decoder read behind another request ends the head deadline")
    func pipelined() {
        var state = ConnectionStateDriver(limits: limits, openedAt: at(0))
        _ = state.received(bytes("GET / HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n"), at: at(0))
        state.headDecoded()
        state.headDecoded()
        #expect(state.phase == .exchanging)
        // The observer reports only when both are answered: nothing of a third head is awaited before.
        state.exchangesFinished(at: at(1))
        #expect(state.phase == .idle(since: at(1)))
        state = ConnectionStateDriver(limits: limits, openedAt: at(0))
        state.headDecoded()
        #expect(state.phase == .exchanging)
        #expect(state.deadline == nil)
    }

    @Test("a client that takes no data for the write timeout is reset, in any phase; one that takes some is not")
    func stalled() {
        let state = ConnectionStateDriver(limits: limits, openedAt: at(0))
        _ = state.received(bytes("GET /feeds/a/stream HTTP/1.1\r\n\r\n"), at: at(0))
        state.writabilityChanged(isWritable: false, at: at(10))
        state.writabilityChanged(isWritable: false, at: at(11))
        #expect(state.deadline == at(12), "the stall counts from when data first waited")
        state.writabilityChanged(isWritable: true, at: at(11.5))
        #expect(state.deadline == nil)
        state.writabilityChanged(isWritable: false, at: at(20))
        #expect(state.timerFired(at: at(21.9)) == .none)
        #expect(state.timerFired(at: at(22)) == .resetStalled)
        #expect(state.phase == .closed)
        #expect(state.deadline == nil, "nothing is due once closed, though data still waits")

        let waiting = ConnectionStateDriver(limits: limits, openedAt: at(0))
        waiting.writabilityChanged(isWritable: false, at: at(0))
        #expect(waiting.deadline == at(1), "the earlier deadline comes first")
    }

    @Test("a malformed first request is answered by the guard; once Hummingbird has the connection, not")
    func malformed() {
        let state = ConnectionStateDriver(limits: limits, openedAt: at(0))
        #expect(state.malformed(at: at(0)))
        #expect(state.phase == .lingering(until: at(2)))
        #expect(!state.malformed(at: at(0)))

        let observed = ConnectionStateDriver(limits: limits, openedAt: at(0))
        observed.headDecoded()
        #expect(!observed.malformed(at: at(0)))
    }

    @Test("a lingering connection closes when the client closes its side")
    func inputClosed() {
        let state = ConnectionStateDriver(limits: limits, openedAt: at(0))
        #expect(!state.inputClosed(), "before an answer of its own the HTTP handlers decide")
        _ = state.timerFired(at: at(0))
        _ = state.received(bytes("GET"), at: at(0))
        #expect(state.timerFired(at: at(1)) == .answerTimeout)
        #expect(state.inputClosed())
        #expect(state.phase == .closed)
    }
}

/// An `HTTPConnectionState` behind a reference, so that `#expect` can evaluate its mutating
/// calls.
final class ConnectionStateDriver {
    private var state: HTTPConnectionState

    init(limits: HTTPConnectionLimits, openedAt now: NIODeadline) {
        state = HTTPConnectionState(limits: limits, openedAt: now)
    }

    var phase: HTTPConnectionState.Phase { state.phase }
    var deadline: NIODeadline? { state.deadline }

    func received(_ bytes: [UInt8], at now: NIODeadline) -> HTTPConnectionState.ReadAction {
        state.received(bytes, at: now)
    }

    func timerFired(at now: NIODeadline) -> HTTPConnectionState.TimerAction { state.timerFired(at: now) }
    func headDecoded() { state.headDecoded() }
    func exchangesFinished(at now: NIODeadline) { state.exchangesFinished(at: now) }
    func writabilityChanged(isWritable: Bool, at now: NIODeadline) {
        state.writabilityChanged(isWritable: isWritable, at: now)
    }
    func malformed(at now: NIODeadline) -> Bool { state.malformed(at: now) }
    func inputClosed() -> Bool { state.inputClosed() }
}
