import RowCastJSON

/// Reads requests from text: one JSON object, a JSON array of them, or NDJSON (one per line).
///
/// Each element is a request (an object with `op`) or a bare item (no `op`), which becomes an
/// `upsert` into ``defaultFeed``. A request without `feed` gets ``defaultFeed`` too, except
/// `status` and `plugins`.
public struct RequestReader: Sendable {
    /// The feed for bare items and for requests that name none (`--feed`).
    public var defaultFeed: String?
    /// What the text came from, for error messages ("stdin", a file name).
    public var source: String

    /// A reader of text from `source`, with `defaultFeed` for bare items.
    public init(source: String, defaultFeed: String? = nil) {
        self.source = source
        self.defaultFeed = defaultFeed
    }

    /// The requests in `text`, in order.
    ///
    /// The text is read as one JSON value when it is one; otherwise line by line (blank lines
    /// skipped). Errors name the source and the line or array element.
    public func requests(from text: String) throws(RowCastClientError) -> [JSONValue] {
        let bytes = Array(text.utf8)
        // Lines end at "\n" (NDJSON's separator; a "\r" before it is JSON whitespace), found
        // in the UTF-8 bytes: splitting the text into Characters to find line breaks was slow
        // (grapheme breaking over every byte), and split inside a JSON string at a raw U+2028.
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let contentLines = lines.enumerated().filter { !Self.isBlank($0.element) }
        guard !contentLines.isEmpty else {
            throw RowCastClientError(
                code: "invalid_request", message: "\(source) holds no request (expected JSON or NDJSON)")
        }
        let whole: JSONValue
        do {
            whole = try JSONParser.parse(bytes)
        } catch {
            // Several lines whose first one is JSON by itself: NDJSON.
            if contentLines.count > 1, (try? JSONParser.parse(Array(contentLines[0].element))) != nil {
                return try contentLines.map { (offset, line) throws(RowCastClientError) in
                    try parseLine(Array(line), number: offset + 1)
                }
            }
            throw RowCastClientError(code: "invalid_json", message: "\(source): \(error) (expected JSON or NDJSON)")
        }
        if let elements = whole.arrayValue {
            return try elements.enumerated().map { (offset, element) throws(RowCastClientError) in
                try request(from: element, at: "\(source) element \(offset + 1)")
            }
        }
        return try [request(from: whole, at: source)]
    }

    /// The request that `value` stands for (see the type's description); `location` names it
    /// in errors.
    public func request(from value: JSONValue, at location: String) throws(RowCastClientError) -> JSONValue {
        guard var object = value.objectValue else {
            throw RowCastClientError(
                code: "invalid_request",
                message: "\(location): a JSON \(value.kindName) is neither a request nor an item (expected an object)")
        }
        guard let opValue = object["op"] else {
            guard let feed = defaultFeed else {
                throw RowCastClientError(
                    code: "missing_field",
                    message: "\(location): an item without \"op\" needs --feed to say which feed it goes to",
                    field: "feed", id: object["id"]?.stringValue)
            }
            return RowCastRequest.upsert(feed: feed, item: value)
        }
        guard let op = opValue.stringValue else {
            throw RowCastClientError(
                code: "invalid_field", message: "\(location): \"op\" is a \(opValue.kindName), not a string",
                field: "op")
        }
        if object["feed"] == nil, op != "status", op != "plugins", let feed = defaultFeed {
            object["feed"] = .string(feed)
        }
        return .object(object)
    }

    /// Whether `line` holds only whitespace (Unicode's, as a person reading the file sees it).
    private static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
        let asciiBlank = line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0B || $0 == 0x0C }
        if asciiBlank { return true }
        guard line.contains(where: { $0 >= 0x80 }) else { return false }
        return String(decoding: line, as: UTF8.self).allSatisfy(\.isWhitespace)
    }

    /// The request on NDJSON line `number` (counted from 1), as `requests(from:)` reads it.
    public func request(fromLine line: [UInt8], number: Int) throws(RowCastClientError) -> JSONValue {
        try parseLine(line, number: number)
    }

    /// Whether `line` holds only whitespace.
    public static func isBlankLine(_ line: ArraySlice<UInt8>) -> Bool { isBlank(line) }

    private func parseLine(_ line: [UInt8], number: Int) throws(RowCastClientError) -> JSONValue {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw RowCastClientError(code: "invalid_json", message: "\(source) line \(number): \(error)")
        }
        return try request(from: value, at: "\(source) line \(number)")
    }
}
