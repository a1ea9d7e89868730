/// UTF-8 checks for the JSON parser: an ASCII fast path, then a full RFC 3629 validation
/// (no overlong forms, no surrogates, nothing above U+10FFFF). Written out because the
/// standard library's `String(validating:as:)` is not specialized for our buffers and costs
/// a runtime metadata lookup per call, which showed up large in rowcastd's ingest profile.
public enum UTF8Validation {
    /// A string from bytes, or nil when they are not valid UTF-8.
    @inline(__always)
    static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard isValid(bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `bytes` are valid UTF-8.
    public static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        // Eight ASCII bytes at a time while the input is ASCII.
        while index + 8 <= count,
            bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
        {
            index += 8
        }
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return false
            }
            guard index + length <= count else { return false }
            let second = bytes[index + 1]
            guard second >= lower && second <= upper else { return false }
            for offset in 2..<max(2, length) where bytes[index + offset] & 0xC0 != 0x80 {
                return false
            }
            index += length
        }
        return true
    }
}
