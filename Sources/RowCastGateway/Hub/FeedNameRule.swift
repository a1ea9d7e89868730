/// The feed name rule of PROTOCOL.md ("Names and limits"): 1 to 128 bytes of
/// `A-Z a-z 0-9 . _ -`. The gateway checks it before a name reaches the daemon or a replica.
enum FeedNameRule {
    /// The longest feed name, in bytes.
    static let maximumLength = 128

    /// Whether `name` is a valid feed name.
    static func isValid(_ name: String) -> Bool {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    /// Why `name` is refused, for an HTTP 400 body.
    static func problem(with name: String) -> String {
        "invalid feed name \"\(name.prefix(140))\": a feed name is 1 to \(maximumLength) characters of A-Z a-z 0-9 . _ -"
    }
}
