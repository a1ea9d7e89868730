import RowCastJSON

extension JSONValue {
    /// The value as compact JSON text, numbers as written.
    var jsonText: String { String(decoding: serialized(), as: UTF8.self) }
}
