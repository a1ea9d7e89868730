/// A machine-readable error code, as listed in docs/PROTOCOL.md. A struct, not an enum, so
/// codes can be added without breaking code that switches over the known ones.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as it appears on the wire, e.g. `missing_field`.
    public let rawValue: String

    /// A code from its wire name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The wire name.
    public var description: String { rawValue }

    /// The message is not valid JSON.
    public static let invalidJSON = ErrorCode(rawValue: "invalid_json")
    /// The JSON is not a request object, or a PULL message had several frames.
    public static let invalidRequest = ErrorCode(rawValue: "invalid_request")
    /// The message is over the size limit.
    public static let tooLarge = ErrorCode(rawValue: "too_large")
    /// `op` names no operation this socket takes.
    public static let unknownOp = ErrorCode(rawValue: "unknown_op")
    /// A required field is absent.
    public static let missingField = ErrorCode(rawValue: "missing_field")
    /// A field has the wrong type or an impossible value.
    public static let invalidField = ErrorCode(rawValue: "invalid_field")
    /// The plugin rejected the item without naming a field.
    public static let invalidItem = ErrorCode(rawValue: "invalid_item")
    /// No plugin handles the item's type; the item waits for one.
    public static let unknownType = ErrorCode(rawValue: "unknown_type")
    /// A reset named an id twice; the last one was kept.
    public static let duplicateID = ErrorCode(rawValue: "duplicate_id")
    /// The feed has no item or section with that id.
    public static let notFound = ErrorCode(rawValue: "not_found")
    /// The row's plugin has no action handler.
    public static let noAction = ErrorCode(rawValue: "no_action")
    /// `select` named an action the row does not declare.
    public static let unknownAction = ErrorCode(rawValue: "unknown_action")
    /// `select` carried a value that does not fit the action's declared role or value type.
    public static let invalidValue = ErrorCode(rawValue: "invalid_value")
    /// The plugin failed or returned something that is not a valid row.
    public static let pluginFailed = ErrorCode(rawValue: "plugin_failed")
    /// The plugin's host died while rendering the item (a signal, abort, exit, the memory
    /// limit); the item is stored and quarantined.
    public static let pluginCrashed = ErrorCode(rawValue: "plugin_crashed")
    /// The plugin did not return within `plugin_timeout_ms`; its host was killed and the item
    /// is stored and quarantined.
    public static let pluginTimeout = ErrorCode(rawValue: "plugin_timeout")
    /// The plugin is paused after its host crashed or hung again and again: the request was
    /// not sent to it and nothing was stored. Send it again later (`rowcast plugins` shows
    /// how long the pause lasts).
    public static let pluginUnavailable = ErrorCode(rawValue: "plugin_unavailable")
    /// No cluster node serves the feed's partition right now (its lease is moving to another
    /// node): nothing was applied and the answer is not remembered. Send it again shortly.
    public static let partitionUnavailable = ErrorCode(rawValue: "partition_unavailable")
    /// The cluster node that owns the feed did not answer the forwarded request in time: it
    /// may or may not have been applied. Send it again with the same `client` and `req`; the
    /// shared ledger answers a repeat of an applied request with its first answer.
    public static let forwardTimeout = ErrorCode(rawValue: "forward_timeout")
    /// The quarantine was over its limit (per feed or in all): its oldest entry was dropped.
    /// The dropped item stays stored without a row and is no longer listed.
    public static let quarantineFull = ErrorCode(rawValue: "quarantine_full")
    /// The item's stored record failed its checksum or did not parse at start: it is not
    /// served, its feed started a new epoch, and it is listed in the quarantine until it is
    /// sent again, deleted, or its feed reset.
    public static let recordDamaged = ErrorCode(rawValue: "record_damaged")
    /// A `reload` failed (bad configuration file, or a plugin refused); the daemon kept running
    /// with the configuration and plugins it had.
    public static let reloadFailed = ErrorCode(rawValue: "reload_failed")
    /// A bug in rowcastd.
    public static let internalError = ErrorCode(rawValue: "internal_error")
}
