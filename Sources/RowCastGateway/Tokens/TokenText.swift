import Foundation
import RowCastJSON

/// The three parts of a compact JWT (`HEADER.PAYLOAD.SIGNATURE`, base64url), with its header
/// and payload parsed as JSON objects. Read before the signature is checked, only to pick the
/// key by `alg` and to give a malformed token a precise refusal.
struct TokenText {
    /// The longest token read, in bytes (a header is read whole, so this bounds a request).
    static let maximumLength = 8192

    /// The header's members (`alg`, `typ`, `kid`).
    let header: JSONObject
    /// The payload's members: the claims.
    let claims: JSONObject

    /// `token` split and parsed, or `token_invalid` saying what is wrong with it.
    init(_ token: String) throws(TokenRefusal) {
        guard token.utf8.count <= Self.maximumLength else {
            throw .invalid("it is \(token.utf8.count) bytes; a token is at most \(Self.maximumLength)")
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .invalid(
                "a JWT is three base64url parts joined by dots (HEADER.PAYLOAD.SIGNATURE), this has \(parts.count)")
        }
        header = try Self.object(parts[0], "header")
        claims = try Self.object(parts[1], "payload")
    }

    /// The JSON object that `part` encodes.
    private static func object(_ part: Substring, _ name: String) throws(TokenRefusal) -> JSONObject {
        guard let bytes = base64URLDecoded(part) else { throw .invalid("its \(name) is not base64url") }
        guard let value = try? JSONParser.parse(bytes), let object = value.objectValue else {
            throw .invalid("its \(name) is not a JSON object")
        }
        return object
    }

    /// The bytes of unpadded base64url `text`, or nil.
    static func base64URLDecoded(_ text: Substring) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }
}
