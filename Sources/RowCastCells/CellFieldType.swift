import RowCastKit

/// The type a declarative cell declares for one field of its items, and the check an item's
/// value must pass: `string`, `number`, `integer`, `bool`, `url` or `date`.
public enum CellFieldType: String, Sendable, CaseIterable {
    /// Any JSON string.
    case string
    /// Any JSON number.
    case number
    /// A JSON number without a fraction.
    case integer
    /// `true` or `false`.
    case bool
    /// A string with a scheme (`https://...`, `myapp:detail`) and no spaces.
    case url
    /// An RFC 3339 date string (`2026-11-22`, `2026-11-22T10:00:00Z`) or seconds since 1970.
    case date

    /// The names a cell file may use, for error messages.
    public static var allowedNames: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// Why `value` does not fit this type (`must be a number, got string`), or nil when it fits.
    public func problem(with value: JSONValue) -> String? {
        switch self {
        case .string:
            return value.stringValue == nil ? "must be a string, got \(value.kindName)" : nil
        case .number:
            return value.numberValue == nil ? "must be a number, got \(value.kindName)" : nil
        case .integer:
            guard let number = value.numberValue else { return "must be an integer, got \(value.kindName)" }
            return number.rounded(.towardZero) == number && number.magnitude < 9.007_199_254_740_992e15
                ? nil : "must be an integer, got \(value)"
        case .bool:
            return value.boolValue == nil ? "must be true or false, got \(value.kindName)" : nil
        case .url:
            guard let string = value.stringValue else { return "must be a URL string, got \(value.kindName)" }
            // The URL check of plugins (`Item.url(_:)`), so a cell and a plugin refuse the same values.
            return URLCheck.problem(with: string)
        case .date:
            if let seconds = value.numberValue {
                return CellDate.representable.contains(seconds)
                    ? nil
                    : "must be a date from year 1 to 9999: seconds since 1970 from -62135596800 to 253402300799, got \(value)"
            }
            guard let string = value.stringValue else {
                return "must be a date (RFC 3339 string or seconds since 1970), got \(value.kindName)"
            }
            return CellDate.parse(string) == nil
                ? "must be a date such as 2026-11-22 or 2026-11-22T10:00:00Z, got \"\(string)\"" : nil
        }
    }

}
