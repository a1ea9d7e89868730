/// The one-line STATUS= summary systemd shows in `systemctl status`: feeds, rows, the rate of
/// applied operations, and plugins. Recomputed at most every `interval`, sent only when the
/// text changed.
public struct StatusSummary: Sendable {
    /// The shortest time between two summaries.
    public let interval: Duration
    private var last: (time: ContinuousClock.Instant, applied: UInt64)?
    private var lastText: String?

    /// A summary recomputed at most every `interval`.
    public init(interval: Duration = .seconds(2)) { self.interval = interval }

    /// The summary text for these numbers.
    public static func text(feeds: Int, rows: Int, itemsPerSecond: Int, plugins: Int) -> String {
        "\(count(feeds, "feed")), \(count(rows, "row")), \(itemsPerSecond) items/s, \(count(plugins, "plugin"))"
    }

    /// Whether `update` would compute a new summary at `now` (so the caller can skip counting).
    public func isDue(at now: ContinuousClock.Instant) -> Bool {
        guard let last else { return true }
        return now - last.time >= interval
    }

    /// A new summary when `interval` has passed since the last one and the text changed;
    /// nil otherwise. `applied` is the running total of applied operations.
    public mutating func update(
        at now: ContinuousClock.Instant, feeds: Int, rows: Int, applied: UInt64, plugins: Int
    ) -> String? {
        guard let previous = last else {
            last = (now, applied)
            return changed(Self.text(feeds: feeds, rows: rows, itemsPerSecond: 0, plugins: plugins))
        }
        let elapsed = now - previous.time
        guard elapsed >= interval else { return nil }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = Int((Double(applied &- previous.applied) / seconds).rounded())
        last = (now, applied)
        return changed(Self.text(feeds: feeds, rows: rows, itemsPerSecond: rate, plugins: plugins))
    }

    private mutating func changed(_ text: String) -> String? {
        guard text != lastText else { return nil }
        lastText = text
        return text
    }

    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
