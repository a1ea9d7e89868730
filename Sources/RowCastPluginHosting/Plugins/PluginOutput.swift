import CRowCastPlugin
import RowCastJSON

/// Turns a plugin call's status and output bytes into a ``PluginCallResult``, checking the
/// output without re-encoding it.
public enum PluginOutput {
    /// What the output of a successful call must be.
    public enum Expectation: Sendable {
        /// A row: an object with a string `cell`, a number `height`, an object `content` and an
        /// array `actions` when present.
        case row
        /// An action event: an object, or `null` for no event.
        case event
        /// An action handler's result: an object with optional `event` (object or null),
        /// `update` (object) and `delete` (true), not both of the last two.
        case actionResult
        /// Any bytes: the caller checks the output itself.
        case unchecked
    }

    /// The result of a call to plugin `plugin` that returned `status` with `output`.
    public static func result(
        status: Int32, output: [UInt8], overflowed: Bool, expecting expectation: Expectation, plugin: String
    ) -> PluginCallResult {
        if overflowed {
            return .failed(
                PluginCallError(
                    message: "plugin \(plugin) wrote more than \(LoadedPlugin.maximumOutputSize) bytes of output",
                    code: "output_too_large"
                ))
        }
        switch status {
        case Int32(ROWCAST_OK.rawValue):
            if let problem = check(output, expectation) {
                return .failed(PluginCallError(message: "plugin \(plugin) returned \(problem)", code: "invalid_output"))
            }
            return .ok(output)
        case Int32(ROWCAST_ITEM_ERROR.rawValue):
            let reported = decodeError(output)
            return .rejected(
                PluginCallError(
                    message: reported.message ?? "plugin \(plugin) rejected the input without a message",
                    field: reported.field,
                    code: reported.code
                ))
        case Int32(ROWCAST_PLUGIN_ERROR.rawValue):
            let reported = decodeError(output)
            return .failed(
                PluginCallError(
                    message: "plugin \(plugin) failed: " + (reported.message ?? "no message given"),
                    field: reported.field,
                    code: reported.code ?? "plugin_error"
                ))
        default:
            return .failed(
                PluginCallError(message: "plugin \(plugin) returned unknown status \(status)", code: "invalid_output"))
        }
    }

    /// The failure of a call the plugin does not implement.
    public static func unsupported(_ kind: PluginCallKind, plugin: String) -> PluginCallError {
        let what = kind == .select || kind == .action ? "handles no select actions" : "renders no section headers"
        return PluginCallError(message: "plugin \(plugin) \(what)", code: "unsupported")
    }

    /// What is wrong with `output`, or `nil` when it is what the call must return.
    private static func check(_ output: [UInt8], _ expectation: Expectation) -> String? {
        if case .unchecked = expectation { return nil }
        let value: JSONValue
        do {
            value = try JSONParser.parse(output)
        } catch {
            return "invalid JSON: \(error)"
        }
        switch expectation {
        case .unchecked:
            return nil
        case .event:
            if value.isNull || value.objectValue != nil { return nil }
            return "an event that is not a JSON object or null (got \(value.kindName))"
        case .actionResult:
            return PluginActionResult.problem(in: value)
        case .row:
            guard let row = value.objectValue else { return "a row that is not a JSON object (got \(value.kindName))" }
            guard let cell = row["cell"] else { return "a row without \"cell\"" }
            guard let cellName = cell.stringValue, !cellName.isEmpty else {
                return "a row whose \"cell\" is not a non-empty string (got \(cell.kindName))"
            }
            guard let height = row["height"] else { return "a row without \"height\"" }
            guard height.numberValue != nil else {
                return "a row whose \"height\" is not a number (got \(height.kindName))"
            }
            if let content = row["content"], content.objectValue == nil {
                return "a row whose \"content\" is not an object (got \(content.kindName))"
            }
            if let actions = row["actions"], actions.arrayValue == nil {
                return "a row whose \"actions\" is not an array (got \(actions.kindName))"
            }
            return nil
        }
    }

    /// The `message`, `field` and `code` strings of an error object, whichever are there.
    private static func decodeError(_ output: [UInt8]) -> (message: String?, field: String?, code: String?) {
        guard let object = (try? JSONParser.parse(output))?.objectValue else {
            if output.isEmpty { return (nil, nil, nil) }
            return ("(unparsable error output: \(String(decoding: output.prefix(200), as: UTF8.self)))", nil, nil)
        }
        let message = object["message"]?.stringValue
        return (message.flatMap { $0.isEmpty ? nil : $0 }, object["field"]?.stringValue, object["code"]?.stringValue)
    }
}
