#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The naming rules of docs/PROTOCOL.md ("Names and limits").
public enum Names {
    /// The longest feed name, in bytes.
    public static let maximumFeedLength = 128
    /// The longest item or section id, in bytes.
    public static let maximumIDLength = 256
    /// The longest item or section type, in bytes.
    public static let maximumTypeLength = 64

    /// Whether `name` is a valid feed name: 1 to 128 bytes of `A-Z a-z 0-9 . _ -`.
    public static func isValidFeed(_ name: String) -> Bool {
        check(name, isValidFeed(utf8:))
    }

    /// Whether `type` is a valid item or section type: 1 to 64 bytes of `A-Z a-z 0-9 . _ -`.
    public static func isValidType(_ type: String) -> Bool {
        check(type, isValidType(utf8:))
    }

    /// Whether `id` is a valid item or section id: a non-empty string of at most 256 bytes,
    /// without U+0000. (SQLite's text binding through GRDB ends a string at its first NUL, so
    /// `a\u0000b` and `a\u0000c` were one row of the store: one of them was lost at restart.)
    public static func isValidID(_ id: String) -> Bool {
        check(id, isValidID(utf8:))
    }

    /// Whether `client` is a valid client name: any string without U+0000 (the store keys
    /// remembered answers by it, and would end it at the NUL).
    public static func isValidClient(_ client: String) -> Bool {
        check(client, isValidClient(utf8:))
    }

    /// `rule` applied to `text`'s contiguous UTF-8 (a native or small string's own bytes, every
    /// string decoded here; going through `UTF8View`'s iterator cost far more per upsert, for
    /// the id and the section).
    private static func check(_ text: String, _ rule: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        var text = text
        return text.withUTF8 { rule(UnsafeRawBufferPointer($0)) }
    }

    /// `isValidFeed` of the string whose UTF-8 is `utf8`, read where it lies (the upsert fast
    /// lane checks a name before it makes the `String`, and makes none for a name it refuses).
    static func isValidFeed(utf8: UnsafeRawBufferPointer) -> Bool {
        isToken(utf8: utf8, maximumLength: maximumFeedLength)
    }

    /// `isValidType` of the string whose UTF-8 is `utf8`.
    static func isValidType(utf8: UnsafeRawBufferPointer) -> Bool {
        isToken(utf8: utf8, maximumLength: maximumTypeLength)
    }

    /// `isValidID` of the string whose UTF-8 is `utf8`.
    static func isValidID(utf8: UnsafeRawBufferPointer) -> Bool {
        !utf8.isEmpty && utf8.count <= maximumIDLength && memchr(utf8.baseAddress!, 0, utf8.count) == nil
    }

    /// `isValidClient` of the string whose UTF-8 is `utf8`.
    static func isValidClient(utf8: UnsafeRawBufferPointer) -> Bool {
        utf8.isEmpty || memchr(utf8.baseAddress!, 0, utf8.count) == nil
    }

    /// Whether `utf8` is 1 to `maximumLength` bytes of `A-Z a-z 0-9 . _ -`.
    private static func isToken(utf8: UnsafeRawBufferPointer, maximumLength: Int) -> Bool {
        !utf8.isEmpty && utf8.count <= maximumLength && utf8.allSatisfy(isTokenByte)
    }

    /// Whether `byte` may stand in a feed name or a type: `A-Z a-z 0-9 . _ -`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}
