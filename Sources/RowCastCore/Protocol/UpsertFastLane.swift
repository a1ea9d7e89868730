import RowCastKit

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
        guard scanner.beginObject() == true else { return nil }
        var seen = Seen()
        var feed: String?
        var client: String?
        var req: RequestID?
        var item: ItemInput?
        repeat {
            guard let key = scanner.key() else { return nil }
            if scanner.bytes(key, are: "item") {
                guard seen.first(.item), let read = readItem(message, &scanner, &seen) else { return nil }
                item = read
            } else if scanner.bytes(key, are: "feed") {
                guard seen.first(.feed), scanner.peek() == UInt8(ascii: "\""), let range = scanner.plainString() else { return nil }
                let name = String(decoding: UnsafeRawBufferPointer(rebasing: buffer[range]), as: UTF8.self)
                guard Names.isValidFeed(name) else { return nil }
                feed = name
            } else if scanner.bytes(key, are: "op") {
                guard seen.first(.op), scanner.peek() == UInt8(ascii: "\""), let range = scanner.plainString(),
                      scanner.bytes(range, are: "upsert") else { return nil }
            } else if scanner.bytes(key, are: "req") {
                guard seen.first(.req), let first = scanner.peek(), first == UInt8(ascii: "\"") || first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return nil }
                let start = scanner.index
                guard scanner.skipValue(), let id = RequestID(message, range: start..<scanner.index), id.isValid else { return nil }
                req = id
            } else if scanner.bytes(key, are: "client") {
                guard seen.first(.client), scanner.peek() == UInt8(ascii: "\""), let range = scanner.plainString() else { return nil }
                let name = String(decoding: UnsafeRawBufferPointer(rebasing: buffer[range]), as: UTF8.self)
                guard Names.isValidClient(name) else { return nil }
                client = name
            } else {
                return nil
            }
            guard let more = scanner.next(closedBy: UInt8(ascii: "}")) else { return nil }
            if !more { break }
        } while true
        guard scanner.atEnd(), seen.contains(.op), let feed, let item else { return nil }
        return Request(op: "upsert", feed: feed, operation: .upsert(item), req: req, client: client)
    }

    /// The item object at the scanner, validated as `RequestDecoder.item` validates it.
    private static func readItem(_ message: [UInt8], _ scanner: inout JSONScanner, _ seen: inout Seen) -> ItemInput? {
        guard scanner.peek() == UInt8(ascii: "{") else { return nil }
        let start = scanner.index
        guard let hasMembers = scanner.beginObject(), hasMembers else { return nil }
        var id: String?
        var type: String?
        var section: String?
        var sort: Double?
        repeat {
            guard let key = scanner.key() else { return nil }
            if scanner.bytes(key, are: "data") {
                guard seen.first(.data), let first = scanner.peek(), first == UInt8(ascii: "{") || first == UInt8(ascii: "n"), scanner.skipValue() else { return nil }
            } else if scanner.bytes(key, are: "id") {
                guard seen.first(.id), let name = string(&scanner), Names.isValidID(name) else { return nil }
                id = name
            } else if scanner.bytes(key, are: "type") {
                guard seen.first(.type), let name = string(&scanner), Names.isValidType(name) else { return nil }
                type = name
            } else if scanner.bytes(key, are: "section") {
                guard seen.first(.section), let name = string(&scanner), Names.isValidID(name) else { return nil }
                section = name
            } else if scanner.bytes(key, are: "sort") {
                guard seen.first(.sort), let first = scanner.peek(), first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
                      let number = scanner.number() else { return nil }
                sort = number
            } else {
                return nil
            }
            guard let more = scanner.next(closedBy: UInt8(ascii: "}")) else { return nil }
            if !more { break }
        } while true
        guard let id, let type else { return nil }
        return ItemInput(id: id, type: type, section: section ?? ItemInput.defaultSection, sort: sort, json: Array(message[start..<scanner.index]))
    }

    /// A string value without escapes at the scanner.
    private static func string(_ scanner: inout JSONScanner) -> String? {
        guard scanner.peek() == UInt8(ascii: "\""), let range = scanner.plainString() else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: scanner.bytes[range]), as: UTF8.self)
    }
}
