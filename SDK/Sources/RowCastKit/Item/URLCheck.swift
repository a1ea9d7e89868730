/// What a URL field or value must look like: an RFC 3986 scheme, a colon and a rest without
/// whitespace or control characters, and a scheme the reader accepts: by default only the
/// web's (`http`, `https`), so a publisher cannot slip a `javascript:` or `data:` URL into an
/// action a client opens. A plugin that means other schemes (an app's own `myapp:`, `mailto:`)
/// names them (`url(_:schemes:)`).
public enum URLCheck {
    /// The schemes accepted unless others are named.
    public static let webSchemes: Set<String> = ["http", "https"]

    /// The scheme of `string`, lower case, when it is a syntactically valid URL; nil otherwise.
    public static func scheme(of string: String) -> String? {
        let bytes = string.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon != bytes.startIndex else { return nil }
        for (offset, byte) in bytes[..<colon].enumerated() {
            let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let isOther =
                (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isLetter || (offset > 0 && isOther) else { return nil }
        }
        let rest = bytes[bytes.index(after: colon)...]
        guard !rest.isEmpty, !rest.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return nil }
        return String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
    }

    /// Why `string` is not a URL of one of `schemes` (in any case), completing "must be ...", or
    /// nil when it is.
    public static func problem(with string: String, schemes: Set<String> = webSchemes) -> String? {
        guard let scheme = scheme(of: string) else {
            return "must be a URL with a scheme such as https://, got \"\(string)\""
        }
        guard schemes.contains(scheme) || schemes.contains(where: { $0.lowercased() == scheme }) else {
            return "must be a URL with the scheme \(schemes.sorted().joined(separator: " or ")), got \"\(string)\""
        }
        return nil
    }
}
