import RowCastJSON

extension JSONValue {
    /// The number as an `Int`, when this value is an integral number that fits.
    var integerValue: Int? {
        guard let number = numberValue, number == number.rounded(),
            abs(number) < 9_007_199_254_740_992
        else { return nil }
        return Int(number)
    }

    /// The compact JSON text of this value.
    var compactText: String { String(decoding: serialized(), as: UTF8.self) }
}

extension JSONObject {
    /// This object without any member named `key`.
    func removing(_ key: String) -> JSONObject {
        var copy = self
        copy[key] = nil
        return copy
    }
}
