import Foundation
import RowCastWatch
import Testing

@Suite("TerminalSignals")
struct TerminalSignalsTests {
    @Test("a signal arrives as its number on the pipe, read on the caller's thread")
    func windowChange() throws {
        // SIGWINCH only: the test process's handlers of the other signals stay as they are.
        let signals = try TerminalSignals(signals: [SIGWINCH])
        defer { signals.stop() }
        #expect(signals.received() == [])
        #expect(kill(getpid(), SIGWINCH) == 0)
        var received: [Int32] = []
        let deadline = Date().addingTimeInterval(10)
        while received.isEmpty && Date() < deadline {
            var descriptor = pollfd(fd: signals.fileDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 100)
            received += signals.received()
        }
        #expect(received == [SIGWINCH])
    }
}
