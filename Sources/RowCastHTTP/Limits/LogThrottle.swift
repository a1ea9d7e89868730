import NIOCore

/// At most one log line per `interval` for one kind of event, so that a flood of refused or
/// closed connections cannot flood the log: the first event is logged, those that follow
/// within the interval are counted, and the next line says how many were not logged. Pure
/// (`LogThrottleTests`).
struct LogThrottle: Sendable, Equatable {
    /// The shortest time between two lines.
    let interval: TimeAmount
    /// When the last line was written.
    private var lastLine: NIODeadline?
    /// Events since the last line that were not logged.
    private(set) var suppressed = 0

    /// A throttle writing at most one line per `interval`.
    init(interval: TimeAmount) { self.interval = interval }

    /// An event happened at `now`: the number of events not logged before it when it is to be
    /// logged (0 for none), or nil when it is only counted.
    mutating func admit(at now: NIODeadline) -> Int? {
        if let lastLine, now < lastLine + interval {
            suppressed += 1
            return nil
        }
        lastLine = now
        defer { suppressed = 0 }
        return suppressed
    }
}
