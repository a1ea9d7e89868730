/// A point in time after which a wait gives up, or none (wait for ever).
struct Deadline {
    /// When the wait ends; `nil` waits for ever.
    let end: ContinuousClock.Instant?

    /// A deadline `timeout` from now, or none for `nil`.
    init(_ timeout: Duration?) {
        end = timeout.map { ContinuousClock.now.advanced(by: $0) }
    }

    /// Milliseconds left, for `zmq_poll`: -1 for ever, else at least 0.
    var remainingMilliseconds: Int {
        guard let end else { return -1 }
        let left = ContinuousClock.now.duration(to: end)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        // Round up so a wait never ends a fraction of a millisecond early.
        return Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    /// Whether the deadline has passed.
    var hasPassed: Bool {
        guard let end else { return false }
        return ContinuousClock.now >= end
    }
}

extension Duration {
    /// This duration in seconds, for messages.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }

    /// A duration of `seconds` (fractions allowed), for command-line values.
    public static func seconds(fractional seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
