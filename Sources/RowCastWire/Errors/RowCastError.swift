import RowCastJSON

/// An error a user can act on: a code, a message naming the thing concerned, and, when known,
/// the field, feed and item or section id. It travels in replies and error events.
public struct RowCastError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of error this is.
    public var code: ErrorCode
    /// One sentence saying what went wrong and with what.
    public var message: String
    /// The field concerned (`item.id`, or a data field such as `price`), if any.
    public var field: String?
    /// The feed concerned, if known.
    public var feed: String?
    /// The item or section id concerned, if known.
    public var id: String?
    /// The configuration key of the limit a `limit_exceeded` error ran into
    /// (`limits.max_items_per_feed`, ...).
    public var limit: String?

    /// An error with every detail given.
    public init(
        _ code: ErrorCode, _ message: String, field: String? = nil, feed: String? = nil, id: String? = nil,
        limit: String? = nil
    ) {
        self.code = code
        self.message = message
        self.field = field
        self.feed = feed
        self.id = id
        self.limit = limit
    }

    /// `code: message`, the CLI's one-line form.
    public var description: String { "\(code): \(message)" }

    /// The error object of the wire protocol: `{"code","message","field"?,"feed"?,"id"?,"limit"?}`.
    public var json: JSONValue {
        var object = JSONObject()
        object.append(key: "code", value: .string(code.rawValue))
        object.append(key: "message", value: .string(message))
        if let field { object.append(key: "field", value: .string(field)) }
        if let feed { object.append(key: "feed", value: .string(feed)) }
        if let id { object.append(key: "id", value: .string(id)) }
        if let limit { object.append(key: "limit", value: .string(limit)) }
        return .object(object)
    }
}
