import RowCastKit

/// What one call over the plugin C ABI returned, as rowcastd reads it.
public enum PluginReply: Equatable, Sendable {
    /// `ROWCAST_OK`: the output, parsed (a row without `id` and `type`, an event, or `null`).
    case ok(JSONValue)
    /// `ROWCAST_ITEM_ERROR`: the error object `{"message","field"?,"code"?}`.
    case itemError(JSONValue)
    /// `ROWCAST_PLUGIN_ERROR`, another status, or output that is not JSON: the status and the
    /// output as text.
    case failed(status: Int32, output: String)

    /// The output of a successful call, or nil.
    public var value: JSONValue? {
        if case .ok(let value) = self { return value }
        return nil
    }

    /// The `code` of an item error, or nil.
    public var errorCode: String? {
        if case .itemError(let error) = self { return error.objectValue?["code"]?.stringValue }
        return nil
    }
}
