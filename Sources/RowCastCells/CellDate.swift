/// Dates for declarative cells, without Foundation's locale machinery: RFC 3339 parsing, and
/// the absolute and relative forms the `date`, `datetime` and `relative_date` transforms write.
/// Every date is shown in UTC.
public enum CellDate {
    /// Seconds since 1970-01-01T00:00:00Z of `2026-11-22`, `2026-11-22T10:00Z`,
    /// `2026-11-22T10:00:00.250+01:00` (a space may stand for the `T`), or nil when the string
    /// is not such a date.
    public static func parse(_ text: String) -> Double? {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.skip("-"), let month = scanner.digits(2), scanner.skip("-"),
            let day = scanner.digits(2), (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
        if scanner.atEnd { return seconds }
        guard scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
            let hour = scanner.digits(2), scanner.skip(":"), let minute = scanner.digits(2),
            hour < 24, minute < 60
        else { return nil }
        seconds += Double(hour * 3600 + minute * 60)
        if scanner.skip(":") {
            guard let second = scanner.digits(2), second < 61 else { return nil }
            seconds += Double(second)
            if scanner.skip(".") {
                var scale = 0.1
                var any = false
                while let digit = scanner.digit() {
                    seconds += Double(digit) * scale
                    scale /= 10
                    any = true
                }
                guard any else { return nil }
            }
        }
        if scanner.atEnd || scanner.skip("Z") || scanner.skip("z") { return scanner.atEnd ? seconds : nil }
        let sign: Double
        if scanner.skip("+") { sign = 1 } else if scanner.skip("-") { sign = -1 } else { return nil }
        guard let offsetHours = scanner.digits(2), scanner.skip(":"), let offsetMinutes = scanner.digits(2),
            offsetHours < 24, offsetMinutes < 60, scanner.atEnd
        else { return nil }
        return seconds - sign * Double(offsetHours * 3600 + offsetMinutes * 60)
    }

    /// The dates shown, in seconds since 1970: from 0001-01-01T00:00:00Z to
    /// 9999-12-31T23:59:59Z (a `date` field outside is refused; a day count from a larger
    /// number would not fit an `Int`).
    public static let representable: ClosedRange<Double> = -62_135_596_800...253_402_300_799

    /// `Nov 22, 2026`.
    public static func absolute(_ seconds: Double) -> String {
        let (year, month, day) = civil(fromDays: Int((seconds / 86_400).rounded(.down)))
        return "\(monthNames[month - 1]) \(day), \(year)"
    }

    /// `Nov 22, 2026, 10:05 UTC`.
    public static func absoluteWithTime(_ seconds: Double) -> String {
        let secondOfDay = Int(seconds - (seconds / 86_400).rounded(.down) * 86_400)
        let hour = secondOfDay / 3600, minute = secondOfDay % 3600 / 60
        return absolute(seconds) + ", " + twoDigits(hour) + ":" + twoDigits(minute) + " UTC"
    }

    /// How long before (or after) `now` the date is: `just now`, `5 min ago`, `3 h ago`,
    /// `yesterday`, `4 days ago`, `in 2 days`; beyond a week, the absolute date.
    public static func relative(_ seconds: Double, now: Double) -> String {
        let delta = now - seconds
        let magnitude = delta.magnitude
        let past = delta >= 0
        func phrase(_ amount: Int, _ unit: String) -> String { past ? "\(amount) \(unit) ago" : "in \(amount) \(unit)" }
        switch magnitude {
        case ..<60: return "just now"
        case ..<3600: return phrase(Int(magnitude / 60), "min")
        case ..<86_400: return phrase(Int(magnitude / 3600), "h")
        case ..<(2 * 86_400): return past ? "yesterday" : "tomorrow"
        case ..<(7 * 86_400): return phrase(Int(magnitude / 86_400), "days")
        default: return absolute(seconds)
        }
    }

    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01.
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Reads ASCII digits and punctuation off a UTF-8 string, for ``CellDate/parse(_:)``.
struct DigitScanner {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { offset == bytes.count }

    mutating func digit() -> Int? {
        guard offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) else { return nil }
        defer { offset += 1 }
        return Int(bytes[offset] - UInt8(ascii: "0"))
    }

    mutating func digits(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: character) else { return false }
        offset += 1
        return true
    }
}
