/// A select request as a controller's ``CellController/handle(_:model:item:)`` gets it: which
/// action, the value it carries (already checked against the action's ``ActionRole``), and
/// who asked.
public struct ActionRequest: Sendable, Equatable {
    /// The feed the row is in.
    public var feed: String
    /// The action's name (``RowAction/name``).
    public var action: String
    /// The value the request carried, or nil when it carried none.
    public var value: JSONValue?
    /// Who asked: the CURVE client's name, else the request's `client`, else nil.
    public var requester: String?

    /// A request from its parts.
    public init(feed: String, action: String, value: JSONValue? = nil, requester: String? = nil) {
        self.feed = feed
        self.action = action
        self.value = value
        self.requester = requester
    }
}
