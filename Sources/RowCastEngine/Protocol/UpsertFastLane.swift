import RowCastJSON

/// The decoder's fast lane for the message rowcastd takes most: a plain, valid `upsert`.
///
/// It reads the message once with `JSONScanner`, matches member names as bytes and makes only
/// the strings the request keeps (feed, id, type, section, client, req), where the general
/// decoder builds a `JSONObject` of the members and a `String` of every key. It returns nil
/// for anything it does not take whole: another op, an unknown or repeated member, a key or
/// name with an escape, a `\u` escape or a number outside `JSONScanner`'s subset anywhere, a
/// name that breaks a rule, invalid JSON. The general decoder then decodes the message, so
/// every error, and every message outside the lane, is exactly what it was. When the lane
/// does return a request, it is the one the general decoder returns
/// (`RequestDecoderFastLaneTests` and the `request` fuzz harness check both on each input).
enum UpsertFastLane {
    /// The members of the request and of its item, one bit each (a repeated one leaves the lane).
    private struct Seen: OptionSet {
        let rawValue: UInt16
        static let op = Seen(rawValue: 1 << 0)
        static let feed = Seen(rawValue: 1 << 1)
        static let item = Seen(rawValue: 1 << 2)
        static let req = Seen(rawValue: 1 << 3)
        static let client = Seen(rawValue: 1 << 4)
        static let id = Seen(rawValue: 1 << 5)
        static let type = Seen(rawValue: 1 << 6)
        static let section = Seen(rawValue: 1 << 7)
        static let sort = Seen(rawValue: 1 << 8)
        static let data = Seen(rawValue: 1 << 9)

        /// Records `member`; false when it was seen before.
        mutating func first(_ member: Seen) -> Bool { insert(member).inserted }
    }

    /// The upsert `message` asks for, or nil when the general decoder must decide.
    static func decode(_ message: [UInt8]) -> Request? {
        message.withUnsafeBytes { buffer in decode(message, buffer) }
    }

    private static func decode(_ message: [UInt8], _ buffer: UnsafeRawBufferPointer) -> Request? {
        var scanner = JSONScanner(buffer)
        var seen = Seen()
        var feed: String?
        var client: String?
        var req: RequestID?
        var item: ItemInput?
        let read = scanner.forEachMember { scanner, key in
            if scanner.bytes(key, are: "item") {
                guard seen.first(.item), let read = readItem(message, &scanner, &seen) else { return false }
                item = read
            } else if scanner.bytes(key, are: "feed") {
                guard seen.first(.feed), let name = plainName(&scanner, Names.isValidFeed(utf8:)) else { return false }
                feed = name
            } else if scanner.bytes(key, are: "op") {
                guard seen.first(.op), scanner.peek() == UInt8(ascii: "\""), let range = scanner.plainString(),
                    scanner.bytes(range, are: "upsert")
                else { return false }
            } else if scanner.bytes(key, are: "req") {
                // A string or a number (RequestID refuses the rest), kept as written.
                guard seen.first(.req), scanner.peek() != nil else { return false }
                let start = scanner.index
                guard scanner.skipValue(), let id = RequestID(message, range: start..<scanner.index), id.isValid else {
                    return false
                }
                req = id
            } else if scanner.bytes(key, are: "client") {
                guard seen.first(.client), let name = plainName(&scanner, Names.isValidClient(utf8:)) else {
                    return false
                }
                client = name
            } else {
                return false
            }
            return true
        }
        guard read, scanner.atEnd(), seen.contains(.op), let feed, let item else { return nil }
        return Request(op: "upsert", feed: feed, operation: .upsert(item), req: req, client: client)
    }

    /// The item object at the scanner, validated as `RequestDecoder.item` validates it.
    private static func readItem(_ message: [UInt8], _ scanner: inout JSONScanner, _ seen: inout Seen) -> ItemInput? {
        guard scanner.peek() == UInt8(ascii: "{") else { return nil }
        let start = scanner.index
        var id: String?
        var type: String?
        var section: String?
        var sort: Double?
        let read = scanner.forEachMember { scanner, key in
            if scanner.bytes(key, are: "data") {
                guard seen.first(.data), let first = scanner.peek(),
                    first == UInt8(ascii: "{") || first == UInt8(ascii: "n")
                else { return false }
                return scanner.skipValue()
            } else if scanner.bytes(key, are: "id") {
                guard seen.first(.id), let name = plainName(&scanner, Names.isValidID(utf8:)) else { return false }
                id = name
            } else if scanner.bytes(key, are: "type") {
                guard seen.first(.type), let name = plainName(&scanner, Names.isValidType(utf8:)) else { return false }
                type = name
            } else if scanner.bytes(key, are: "section") {
                guard seen.first(.section), let name = plainName(&scanner, Names.isValidID(utf8:)) else { return false }
                section = name
            } else if scanner.bytes(key, are: "sort") {
                guard seen.first(.sort), let number = scanner.number() else { return false }
                sort = number
            } else {
                return false
            }
            return true
        }
        guard read, let id, let type else { return nil }
        return ItemInput(
            id: id, type: type, section: section ?? ItemInput.defaultSection, sort: sort,
            json: Array(message[start..<scanner.index]))
    }

    /// The next value as a name: a string without escapes whose UTF-8 `isValid` accepts, checked
    /// where it lies, so that the `String` is made only for a name the lane keeps.
    @inline(__always)
    private static func plainName(_ scanner: inout JSONScanner, _ isValid: (UnsafeRawBufferPointer) -> Bool) -> String?
    {
        guard scanner.consume(UInt8(ascii: "\"")), let range = scanner.plainStringContent() else { return nil }
        let utf8 = UnsafeRawBufferPointer(rebasing: scanner.bytes[range])
        guard isValid(utf8) else { return nil }
        return String(decoding: utf8, as: UTF8.self)
    }
}
