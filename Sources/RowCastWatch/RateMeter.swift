/// Counts events (applied deltas) and tells how many came per second lately, over a sliding
/// window of a few fixed buckets, so memory stays constant however fast they come.
///
/// Pure: every call takes the current time.
public struct RateMeter: Sendable {
    /// The span of one bucket.
    public let bucket: Duration
    /// How many buckets the window holds.
    public let bucketCount: Int
    /// The start of each bucket in the window, oldest first, with its count.
    private var buckets: [(start: ContinuousClock.Instant, count: Int)] = []

    /// A meter over `bucketCount` buckets of `bucket` each (2 s by default).
    public init(bucket: Duration = .milliseconds(250), bucketCount: Int = 8) {
        self.bucket = bucket
        self.bucketCount = max(bucketCount, 1)
    }

    /// Counts `events` events at `now`.
    public mutating func record(_ events: Int = 1, now: ContinuousClock.Instant) {
        if let last = buckets.last, now < last.start + bucket {
            buckets[buckets.count - 1].count += events
        } else {
            buckets.append((now, events))
        }
        drop(before: now)
    }

    /// Events per second over the window ending at `now`.
    public func perSecond(now: ContinuousClock.Instant) -> Double {
        let window = bucket * bucketCount
        let recent = buckets.filter { $0.start > now - window }
        guard !recent.isEmpty else { return 0 }
        let total = recent.reduce(0) { $0 + $1.count }
        return Double(total) / Self.seconds(window)
    }

    /// Drops the buckets that left the window.
    private mutating func drop(before now: ContinuousClock.Instant) {
        let window = bucket * bucketCount
        while let first = buckets.first, first.start <= now - window { buckets.removeFirst() }
    }

    /// `duration` in seconds.
    static func seconds(_ duration: Duration) -> Double {
        let (whole, fraction) = duration.components
        return Double(whole) + Double(fraction) / 1e18
    }
}
