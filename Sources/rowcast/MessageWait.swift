import RowCastClient

/// The wait for the next message: --until-idle ends well, the give-up limit ends badly.
struct MessageWait {
    /// Seconds of silence after which the command stops successfully.
    var idle: Double?
    /// Seconds of silence after which the command fails.
    var giveUp: Double?

    /// The shorter of the two limits, or `nil` (wait for ever).
    var duration: Duration? {
        [idle, giveUp].compactMap { $0 }.min().map { .seconds(fractional: $0) }
    }

    /// Called when `duration` passed without a message: returns for --until-idle, throws a
    /// timeout error otherwise.
    func expire(waitingFor what: String) throws(RowCastClientError) {
        if let idle, idle <= (giveUp ?? .infinity) { return }
        throw RowCastClientError(
            code: "timeout",
            message:
                "nothing arrived within \(Self.format(giveUp ?? 0)) while waiting for \(what); pass a longer --timeout, or check that rowcastd is running and the feed is changing"
        )
    }

    /// "5 s", "0.5 s".
    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}
