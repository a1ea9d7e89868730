import RowCastJSON
import RowCastWire

/// Reads typed members out of a JSON object, turning every absence or type mismatch into a
/// `RowCastError` that names the full field path (`item.id`, `section.order`).
struct FieldReader {
    /// The object being read.
    let object: JSONObject
    /// The path prefix of its members, e.g. `item.` (empty at the top level).
    let path: String
    /// Text put before every message, e.g. `upsert`.
    let context: String

    func required(_ key: String) throws(RowCastError) -> JSONValue {
        guard let value = object[key] else {
            throw RowCastError(.missingField, "\(context): missing field \"\(path)\(key)\"", field: path + key)
        }
        return value
    }

    func string(_ key: String) throws(RowCastError) -> String {
        let value = try required(key)
        guard case .string(let string) = value else { throw mistyped(key, expected: "a string", got: value) }
        return string
    }

    func optionalString(_ key: String) throws(RowCastError) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard case .string(let string) = value else { throw mistyped(key, expected: "a string", got: value) }
        return string
    }

    func optionalBool(_ key: String) throws(RowCastError) -> Bool? {
        guard let value = object[key], !value.isNull else { return nil }
        guard case .bool(let flag) = value else { throw mistyped(key, expected: "true or false", got: value) }
        return flag
    }

    func optionalNumber(_ key: String) throws(RowCastError) -> Double? {
        guard let value = object[key], !value.isNull else { return nil }
        guard case .number(let number) = value else { throw mistyped(key, expected: "a number", got: value) }
        return number.double
    }

    func optionalObject(_ key: String) throws(RowCastError) -> JSONObject? {
        guard let value = object[key], !value.isNull else { return nil }
        guard case .object(let nested) = value else { throw mistyped(key, expected: "an object", got: value) }
        return nested
    }

    func object(_ key: String) throws(RowCastError) -> JSONObject {
        let value = try required(key)
        guard case .object(let nested) = value else { throw mistyped(key, expected: "an object", got: value) }
        return nested
    }

    func optionalArray(_ key: String) throws(RowCastError) -> [JSONValue]? {
        guard let value = object[key], !value.isNull else { return nil }
        guard case .array(let elements) = value else { throw mistyped(key, expected: "an array", got: value) }
        return elements
    }

    func id(_ key: String) throws(RowCastError) -> String {
        let value = try string(key)
        guard Names.isValidID(value) else {
            throw invalid(key, "must be a non-empty string of at most \(Names.maximumIDLength) bytes, without U+0000")
        }
        return value
    }

    func type(_ key: String) throws(RowCastError) -> String {
        let value = try string(key)
        guard Names.isValidType(value) else {
            throw invalid(
                key, "must be 1 to \(Names.maximumTypeLength) characters of A-Z a-z 0-9 . _ - (got \(quoted(value)))")
        }
        return value
    }

    /// Refuses members other than `allowed`, so that a typo is an error, not silence.
    ///
    /// `allowed` is a short list searched in order: comparing a few short strings costs less
    /// than hashing each key for a set, and this runs on every member of every message.
    func rejectUnknown(allowing allowed: [String]) throws(RowCastError) {
        for entry in object.entries where !allowed.contains(entry.key) {
            let list = allowed.sorted().joined(separator: ", ")
            throw RowCastError(
                .invalidField, "\(context): unknown field \"\(path)\(entry.key)\" (allowed: \(list))",
                field: path + entry.key)
        }
    }

    func invalid(_ key: String, _ rule: String) -> RowCastError {
        RowCastError(.invalidField, "\(context): field \"\(path)\(key)\" \(rule)", field: path + key)
    }

    private func mistyped(_ key: String, expected: String, got value: JSONValue) -> RowCastError {
        invalid(key, "must be \(expected), got \(value.kindName)")
    }

    private func quoted(_ text: String) -> String {
        let shown = text.utf8.count > 40 ? String(text.prefix(40)) + "..." : text
        return "\"\(shown)\""
    }
}
