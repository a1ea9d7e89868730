/// What went wrong in one plugin call: an item the plugin rejected (the message, field and
/// code it gave), or a plugin that failed or returned unusable output.
public struct PluginCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line naming the thing at fault, e.g. `missing field "price"` or
    /// `plugin product returned invalid JSON: ...`.
    public let message: String
    /// The item field at fault, when the plugin named one.
    public let field: String?
    /// A machine-readable code: the plugin's own (`missing_field`, ...) for a rejected item;
    /// `invalid_output`, `plugin_error`, `unsupported` or `output_too_large` for a failure.
    public let code: String?

    /// An error with this message, field and code.
    public init(message: String, field: String? = nil, code: String? = nil) {
        self.message = message
        self.field = field
        self.code = code
    }

    /// The message.
    public var description: String { message }
}
