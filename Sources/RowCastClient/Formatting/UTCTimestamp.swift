#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Unix times as operators read them: UTC ISO 8601 to the second, e.g. `2026-11-25T23:41:07Z`
/// (the form rowcastd's log lines use, without the milliseconds).
public enum UTCTimestamp {
    /// The time `milliseconds` after 1970-01-01T00:00:00Z (a fraction of a second is dropped,
    /// rounding toward the past), or nil when it is not a time from year 1 to year 9999.
    public static func iso8601(unixMilliseconds milliseconds: Double) -> String? {
        guard milliseconds.isFinite else { return nil }
        let seconds = (milliseconds / 1000).rounded(.down)
        guard (-62_135_596_800...253_402_300_799).contains(seconds) else { return nil }
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return nil }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
            + "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))Z"
    }

    /// `value` with leading zeros to `width` digits.
    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
