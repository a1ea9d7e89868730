import RowCastKit

/// Checks a plugin's output and turns it into the bytes of a row or header, adding the item's
/// `id` and `type` in front of the plugin's own members without re-encoding them.
public enum RowAssembler {
    /// What is wrong with a plugin's output.
    public struct InvalidOutput: Error, Sendable, CustomStringConvertible {
        /// Why the output is not a row.
        public var reason: String
        /// The reason.
        public var description: String { reason }
    }

    /// The row for item `id` of `type` from a plugin's render output, or why it is not a row:
    /// the output must be a JSON object with a string `cell`, a finite number `height`, an
    /// object `content` if present, an array `actions` if present, and no `id` or `type`.
    public static func row(id: String, type: String, output: [UInt8]) throws(InvalidOutput) -> RenderedRow {
        let cell = try validate(output)
        var writer = JSONWriter(capacity: output.count + id.utf8.count + type.utf8.count + 24)
        writer.writeRaw("{\"id\":")
        writer.write(string: id)
        writer.writeRaw(",\"type\":")
        writer.write(string: type)
        writer.writeRaw(",")
        // Everything after the plugin object's opening brace (validated above).
        let brace = output.firstIndex(of: UInt8(ascii: "{"))!
        writer.writeRaw(output[(brace + 1)...])
        return RenderedRow(cell: cell, bytes: writer.bytes)
    }

    /// The header row bytes from a plugin's header output, validated like a row.
    public static func header(output: [UInt8]) throws(InvalidOutput) -> [UInt8] {
        _ = try validate(output)
        return output
    }

    private static func validate(_ output: [UInt8]) throws(InvalidOutput) -> String {
        let value: JSONValue
        do {
            value = try JSONParser.parse(output)
        } catch {
            throw InvalidOutput(reason: "output is not valid JSON (\(error))")
        }
        guard case .object(let object) = value else {
            throw InvalidOutput(reason: "output must be a JSON object, got \(value.kindName)")
        }
        guard case .string(let cell)? = object["cell"], !cell.isEmpty else {
            throw InvalidOutput(reason: "output has no \"cell\" string")
        }
        guard case .number(let height)? = object["height"], height.isFinite, height >= 0 else {
            throw InvalidOutput(reason: "output has no \"height\" number of 0 or more")
        }
        if let content = object["content"], content.objectValue == nil {
            throw InvalidOutput(reason: "output \"content\" must be an object, got \(content.kindName)")
        }
        if let actions = object["actions"], actions.arrayValue == nil {
            throw InvalidOutput(reason: "output \"actions\" must be an array, got \(actions.kindName)")
        }
        if object["id"] != nil || object["type"] != nil {
            throw InvalidOutput(reason: "output must not contain \"id\" or \"type\" (rowcastd adds them)")
        }
        return cell
    }
}
