/// Unix times as operators read them: UTC ISO 8601 to the second, e.g. `2026-11-25T23:41:07Z`
/// (the form rowcastd's log lines use, without the milliseconds).
public enum UTCTimestamp {
    /// The time `milliseconds` after 1970-01-01T00:00:00Z (a fraction of a second is dropped,
    /// rounding toward the past), or nil when it is not a time from year 1 to year 9999.
    public static func iso8601(unixMilliseconds milliseconds: Double) -> String? {
        guard milliseconds.isFinite else { return nil }
        let seconds = (milliseconds / 1000).rounded(.down)
        guard (-62_135_596_800...253_402_300_799).contains(seconds) else { return nil }
        let total = Int(seconds)
        let days = Int((Double(total) / 86_400).rounded(.down))
        let secondOfDay = total - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))Z"
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `value` with leading zeros to `width` digits.
    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
