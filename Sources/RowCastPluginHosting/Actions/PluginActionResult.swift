import RowCastJSON

/// What a plugin's action handler returned (`handle_action`, or a revision 1 `select` whose
/// event is wrapped as `{"event": ...}`): the event, and the change to make to the item.
public struct PluginActionResult: Sendable, Equatable {
    /// A change to the item the action was selected on.
    public enum Change: Sendable, Equatable {
        /// Set these data fields (a `null` value removes one), render and commit the item.
        case update(JSONObject)
        /// Delete the item.
        case delete

        /// `update` or `delete`, as replies and events name it.
        public var name: String {
            switch self {
            case .update: "update"
            case .delete: "delete"
            }
        }
    }

    /// The event object, or `.null` for none.
    public var event: JSONValue
    /// The change, or nil.
    public var change: Change?

    /// Reads a checked result (see ``problem(in:)``); nil when it is not one.
    public init?(_ value: JSONValue) {
        guard Self.problem(in: value) == nil, let object = value.objectValue else { return nil }
        event = object["event"] ?? .null
        if let update = object["update"]?.objectValue {
            change = .update(update)
        } else if object["delete"]?.boolValue == true {
            change = .delete
        } else {
            change = nil
        }
    }

    /// What is wrong with `value` as an action result, or nil when it is one: an object whose
    /// `event` (if any) is an object or null, `update` (if any) an object, `delete` (if any)
    /// true or false, and not both an update and a delete.
    public static func problem(in value: JSONValue) -> String? {
        guard let object = value.objectValue else {
            return "an action result that is not a JSON object (got \(value.kindName))"
        }
        for entry in object.entries where !["event", "update", "delete"].contains(entry.key) {
            return "an action result with an unknown member \"\(entry.key)\" (expected event, update, delete)"
        }
        if let event = object["event"], !event.isNull, event.objectValue == nil {
            return "an action event that is not a JSON object or null (got \(event.kindName))"
        }
        if let update = object["update"], update.objectValue == nil {
            return "an action \"update\" that is not a JSON object of data fields (got \(update.kindName))"
        }
        if let delete = object["delete"], delete.boolValue == nil {
            return "an action \"delete\" that is not true or false (got \(delete.kindName))"
        }
        if object["update"] != nil, object["delete"]?.boolValue == true {
            return "an action result with both \"update\" and \"delete\""
        }
        return nil
    }
}
