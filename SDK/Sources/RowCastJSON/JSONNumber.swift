/// A JSON number: its value as a `Double`, and the exact text it was written with, so that a
/// number read and written again comes out byte for byte as it came in (`123456789012345678`
/// stays `123456789012345678`, `-0` stays `-0`, `1.50` stays `1.50`).
///
/// Read it as a `Double` with `double` (or `JSONValue.numberValue`); compare it and write it
/// through `text`. Equality and ordering are numeric, as they were when numbers were plain
/// `Double`s: `1`, `1.0` and `1e0` are equal numbers with three different texts.
///
/// Numbers made from a `Double` (or a literal in code) have no text of their own: they print as
/// `JSONWriter.write(number:)` prints a `Double`. The parser keeps the text of every number
/// except integers of up to 15 digits (which print back as written), so common numbers cost
/// nothing extra, and texts of up to 15 bytes are held inline by `String`, without allocating.
public struct JSONNumber: Sendable {
    /// The value as a `Double` (the nearest one, for texts a `Double` cannot hold exactly).
    public let double: Double
    /// The text as written, when it is not what printing `double` gives; nil otherwise.
    let literal: String?

    /// A number with no text of its own: it prints as `double` prints.
    public init(_ double: Double) {
        self.double = double
        self.literal = nil
    }

    /// The parser's initializer: `literal` is valid JSON number text whose value is `double`.
    init(double: Double, literal: String?) {
        self.double = double
        self.literal = literal
    }

    /// A number from its JSON text (`"123456789012345678"`, `"-0"`, `"2.50"`); nil when `text`
    /// is not exactly one JSON number or is out of `Double`'s range.
    public init?(text: String) {
        guard case .number(let number)? = try? JSONParser.parse(text), number.text == text else { return nil }
        self = number
    }

    /// The exact JSON text of this number: as written when it was parsed, else as `double`
    /// prints (`JSONWriter.write(number:)`).
    public var text: String {
        if let literal { return literal }
        var writer = JSONWriter(capacity: 24)
        writer.write(number: double)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Whether the text is an integer as written: digits with an optional leading `-`, no
    /// fraction and no exponent (`7`, `-0`, `123456789012345678901234567890`; not `7.0` or `7e0`).
    public var isIntegerText: Bool {
        guard let literal else {
            return double.isFinite && double == double.rounded() && abs(double) < 9_007_199_254_740_992
        }
        return !literal.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// Whether the value is finite (a parsed number always is).
    public var isFinite: Bool { double.isFinite }
}

extension JSONNumber: Equatable, Comparable {
    /// Numbers are equal when their values are (`1 == 1.0`, `0 == -0`), as `Double`s are.
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool { lhs.double == rhs.double }

    /// Numbers are ordered by value.
    public static func < (lhs: JSONNumber, rhs: JSONNumber) -> Bool { lhs.double < rhs.double }
}

extension JSONNumber: CustomStringConvertible {
    /// The exact JSON text (`text`).
    public var description: String { text }
}
