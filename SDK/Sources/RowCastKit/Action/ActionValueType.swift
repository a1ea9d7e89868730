/// The type of the value an `edit` action takes, declared on the row so that rowcastd can
/// refuse a value that does not fit (`invalid_value`) before any plugin sees it.
public enum ActionValueType: String, Sendable, CaseIterable {
    /// Any JSON string.
    case string
    /// A string with one `@`, something before it and a domain after it, and no spaces.
    case email
    /// An `http` or `https` URL (``URLCheck``): no `javascript:` or `data:` URL reaches the row.
    case url
    /// Any JSON number.
    case number
    /// A JSON number written without fraction or exponent (`42`, `-7`).
    case integer
    /// `true` or `false`.
    case bool

    /// Why `value` is not of this type, or nil when it is.
    public func problem(with value: JSONValue) -> String? {
        switch self {
        case .string:
            return value.stringValue == nil ? "expected a string, got \(value.kindName)" : nil
        case .email:
            guard let text = value.stringValue else {
                return "expected an email address (a string), got \(value.kindName)"
            }
            let parts = text.split(separator: "@", omittingEmptySubsequences: false)
            let valid =
                parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
                && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".") && !text.contains(where: \.isWhitespace)
            return valid ? nil : "expected an email address such as name@example.com, got \"\(text)\""
        case .url:
            guard let text = value.stringValue else { return "expected a URL (a string), got \(value.kindName)" }
            guard URLCheck.scheme(of: text) != nil else {
                return "expected a URL with a scheme such as https://example.com, got \"\(text)\""
            }
            return URLCheck.problem(with: text).map { _ in "expected an http or https URL, got \"\(text)\"" }
        case .number:
            return value.numberValue == nil ? "expected a number, got \(value.kindName)" : nil
        case .integer:
            guard case .number(let number) = value else { return "expected an integer, got \(value.kindName)" }
            let integral = !number.text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
            return integral ? nil : "expected an integer (no fraction or exponent), got \(number.text)"
        case .bool:
            return value.boolValue == nil ? "expected true or false, got \(value.kindName)" : nil
        }
    }
}
