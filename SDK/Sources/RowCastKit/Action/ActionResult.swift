/// What a controller's action handler returns: the event to publish (and keep for producers)
/// and the change to make to the item, which rowcastd applies as it applies an upsert or a
/// delete (rendered, committed, one delta).
public struct ActionResult: Sendable, Equatable {
    /// A change an action makes to the item it was selected on.
    public enum Change: Sendable, Equatable {
        /// Set these data fields (a `null` value removes the field); the item is rendered again.
        case update(JSONObject)
        /// Delete the item.
        case delete
    }

    /// The event, or nil for none.
    public var event: JSONObject?
    /// The change, or nil when the feed stays as it is.
    public var change: Change?

    /// A result from its parts.
    public init(event: JSONObject? = nil, change: Change? = nil) {
        self.event = event
        self.change = change
    }

    /// The result as the ABI's `handle_action` carries it: `{"event":...,"update":{...}}`,
    /// `{"event":...,"delete":true}` or `{"event":...}`.
    public var jsonValue: JSONValue {
        var object: JSONObject = ["event": event.map(JSONValue.object) ?? .null]
        switch change {
        case .update(let fields): object["update"] = .object(fields)
        case .delete: object["delete"] = true
        case nil: break
        }
        return .object(object)
    }
}
