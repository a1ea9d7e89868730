import Glibc
import Dispatch

/// SIGINT, SIGTERM, SIGHUP and SIGWINCH turned into bytes on a pipe that the watch loop polls
/// with its other inputs: no work happens in a signal handler, the loop restores the
/// terminal and quits (or redraws, for SIGWINCH) on its own thread.
///
/// Built on Dispatch signal sources (the signals' previous actions are set aside while it
/// lives); ``stop()`` puts them back. Not thread-safe.
public final class TerminalSignals {
    /// The signals watched.
    public static let watched: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]
    /// The end of the pipe to poll; each readable byte is a signal number.
    public let fileDescriptor: Int32
    /// The end the signal sources write to.
    private let writeEnd: Int32
    /// One source per watched signal.
    private var sources: [DispatchSourceSignal] = []
    /// Each watched signal's action before, to put back.
    private var previousActions: [(signal: Int32, action: __sighandler_t?)] = []

    /// Starts watching the signals.
    public init() throws(TerminalError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TerminalError("cannot create a pipe for signals", errno: errno) }
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        fileDescriptor = ends[0]
        writeEnd = ends[1]
        let writeEnd = writeEnd
        for number in Self.watched {
            previousActions.append((number, signal(number, SIG_IGN)))
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(writeEnd, &byte, 1)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The signals that arrived since the last call, in order.
    public func received() -> [Int32] {
        var signals: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = read(fileDescriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            signals += buffer[..<count].map { Int32($0) }
        }
        return signals
    }

    /// Stops watching: the previous actions come back, the pipe is closed (once no handler
    /// can write to it any more). Idempotent.
    public func stop() {
        guard !sources.isEmpty else { return }
        // A handler may still be running: the pipe closes once every source is cancelled.
        let group = DispatchGroup()
        for source in sources {
            group.enter()
            source.setCancelHandler { group.leave() }
            source.cancel()
        }
        sources = []
        for (number, action) in previousActions { signal(number, action) }
        let ends = (fileDescriptor, writeEnd)
        group.notify(queue: .global()) {
            close(ends.0)
            close(ends.1)
        }
    }

    deinit { stop() }
}

@available(*, unavailable)
extension TerminalSignals: Sendable {}
