import RowCastJSON
import RowCastWire

/// The window a subscriber asks for (docs/PROTOCOL.md, "Windows"): `limit` rows of the feed's
/// flat row order, from row `offset`, from the row after item `after`'s row, or centred on
/// item `around`'s row. Given as query parameters of a stream (`?limit=50&offset=100`) or as
/// the `window` object of a WebSocket `subscribe` or `move` message.
public struct WindowRequest: Sendable, Equatable {
    /// Where the window starts.
    public enum Start: Sendable, Equatable {
        /// At this flat row index (0: the first row).
        case offset(Int)
        /// At the row after this item's row.
        case after(String)
        /// So that this item's row is in the middle (as near as the feed's ends allow).
        case around(String)
    }

    /// Where it starts.
    public var start: Start
    /// How many rows it holds at most (1 to ``SnapshotWindow/maximumLimit``).
    public var limit: Int

    /// A window of `limit` rows from `start`.
    public init(start: Start, limit: Int) {
        self.start = start
        self.limit = limit
    }

    /// The window of a stream's query parameters, `nil` when none of them is given.
    ///
    /// - Throws: a 400 ``GatewayError`` naming the parameter that is wrong.
    public static func parse(
        limit: String?, offset: String?, after: String?, around: String?
    ) throws(GatewayError) -> WindowRequest? {
        if limit == nil, offset == nil, after == nil, around == nil { return nil }
        guard let limit else {
            throw .badRequest("offset, after and around need limit=N: how many rows the window holds")
        }
        let count = try integer(limit, name: "limit")
        let offsetValue = try offset.map { (text) throws(GatewayError) in try integer(text, name: "offset") }
        return try make(limit: count, offset: offsetValue, after: after, around: around)
    }

    /// The window of a `window` object of a WebSocket message:
    /// `{"limit":N,"offset":I}`, `{"limit":N,"after":"ID"}` or `{"limit":N,"around":"ID"}`.
    ///
    /// - Throws: a 400 ``GatewayError`` naming the member that is wrong.
    public static func parse(json: JSONValue) throws(GatewayError) -> WindowRequest {
        guard let object = json.objectValue else { throw .badRequest("\"window\" must be an object") }
        for key in object.keys where !["limit", "offset", "after", "around"].contains(key) {
            throw .badRequest(
                "\"window\" has an unknown member \"\(key.prefix(40))\"; it takes limit and one of offset, after, around"
            )
        }
        guard let limit = object["limit"]?.intValue else { throw .badRequest("\"window.limit\" must be an integer") }
        var offset: Int?
        if let value = object["offset"] {
            guard let number = value.intValue else { throw .badRequest("\"window.offset\" must be an integer") }
            offset = number
        }
        func text(_ key: String) throws(GatewayError) -> String? {
            guard let value = object[key] else { return nil }
            guard let string = value.stringValue else {
                throw .badRequest("\"window.\(key)\" must be a row id (a string)")
            }
            return string
        }
        return try make(limit: limit, offset: offset, after: try text("after"), around: try text("around"))
    }

    /// The window of checked parts.
    private static func make(
        limit: Int, offset: Int?, after: String?, around: String?
    ) throws(GatewayError)
        -> WindowRequest
    {
        guard (1...SnapshotWindow.maximumLimit).contains(limit) else {
            throw .badRequest("limit=\(limit) is out of range: a window holds 1 to \(SnapshotWindow.maximumLimit) rows")
        }
        let given = [offset != nil, after != nil, around != nil].filter { $0 }.count
        guard given <= 1 else { throw .badRequest("give at most one of offset, after and around") }
        if let offset {
            guard offset >= 0 else { throw .badRequest("offset=\(offset) must be 0 or more") }
            return WindowRequest(start: .offset(offset), limit: limit)
        }
        if let after {
            guard !after.isEmpty, after.utf8.count <= 1024 else {
                throw .badRequest("after must be a row id of 1 to 1024 bytes")
            }
            return WindowRequest(start: .after(after), limit: limit)
        }
        if let around {
            guard !around.isEmpty, around.utf8.count <= 1024 else {
                throw .badRequest("around must be a row id of 1 to 1024 bytes")
            }
            return WindowRequest(start: .around(around), limit: limit)
        }
        return WindowRequest(start: .offset(0), limit: limit)
    }

    /// A non-negative decimal integer of a query parameter.
    private static func integer(_ text: String, name: String) throws(GatewayError) -> Int {
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ (48...57).contains($0) }),
            let value = Int(text)
        else {
            throw .badRequest("\(name)=\(text.prefix(40)) is not a non-negative integer")
        }
        return value
    }
}
