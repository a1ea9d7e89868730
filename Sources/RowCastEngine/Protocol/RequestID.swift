import RowCastJSON

/// A request's `req`, exactly as the client wrote it: the JSON text of a string or a number,
/// compared byte for byte and echoed as it came (`123456789012345678` and
/// `123456789012345679` are two requests; `7` and `"7"` are two requests; `"a\/b"` is echoed
/// with its escape).
///
/// A valid `req` is a string or an integer written without fraction or exponent, of any size;
/// `1.0` and `1e0` are refused with `invalid_field` (echoed as written), so no two spellings of
/// one number can be taken for one request or for two.
public struct RequestID: Hashable, Sendable, CustomStringConvertible {
    /// The JSON text as sent: a string with its quotes and escapes, or a number.
    public let json: String

    /// A request id whose JSON text is `json` (trusted to be a JSON string or number).
    public init(json: String) {
        self.json = json
    }

    /// The id of JSON text `bytes[range]`, which the parser has validated: nil when it is not
    /// a string or a number (then the request is refused naming the kind).
    init?(_ bytes: [UInt8], range: Range<Int>) {
        guard let first = range.first.map({ bytes[$0] }), Self.isStringOrNumber(first) else { return nil }
        json = String(decoding: bytes[range], as: UTF8.self)
    }

    /// Whether the text is a string or an integer (the valid forms of `req`).
    public var isValid: Bool {
        guard let first = json.utf8.first else { return false }
        if first == UInt8(ascii: "\"") { return true }
        return !json.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// The JSON text.
    public var description: String { json }

    /// The `req` member of a JSON object body (a reply rowcastd wrote), exactly as written.
    public static func member(of body: [UInt8]) -> RequestID? {
        try? JSONParser.read(body) { reader -> RequestID? in
            var found: RequestID?
            try reader.beginObject()
            while let key = try reader.nextKey() {
                let range = try reader.skipValue()
                if key == "req" { found = RequestID(body, range: range) }
            }
            return found
        }
    }

    private static func isStringOrNumber(_ first: UInt8) -> Bool {
        first == UInt8(ascii: "\"") || first == UInt8(ascii: "-")
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
    }
}
