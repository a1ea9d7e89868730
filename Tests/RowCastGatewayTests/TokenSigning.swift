import Foundation
import JWTKit

/// Claims for the tests to sign, any of them left out when nil.
struct TestClaims: JWTPayload {
    var sub: String?
    var exp: Double?
    var feeds: [String: [String]]?
    var nbf: Double?
    var iss: String?
    var aud: TestAudience?

    func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// `user`'s claims, expiring `seconds` from now, granting `feeds`.
    static func user(_ user: String, expiresIn seconds: Double = 300, feeds: [String: [String]]) -> TestClaims {
        TestClaims(sub: user, exp: Date().timeIntervalSince1970 + seconds, feeds: feeds)
    }
}

/// Signs test tokens with real keys, as an identity provider would.
enum TokenSigning {
    /// A 32-byte HS256 secret.
    static let secret = Array("0123456789abcdef0123456789abcdef".utf8)

    /// `claims` signed HS256 with `secret`.
    static func hs256(_ claims: TestClaims, secret: [UInt8] = secret) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return try await keys.sign(claims)
    }

    /// `claims` signed ES256 with `key`.
    static func es256(_ claims: TestClaims, key: ES256PrivateKey) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key)
        return try await keys.sign(claims)
    }
}

/// A test token's `aud`: one string or a list of them, as RFC 7519 allows.
enum TestAudience: Codable, Sendable {
    case one(String)
    case several([String])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let one = try? container.decode(String.self) {
            self = .one(one)
        } else {
            self = .several(try container.decode([String].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .one(let one): try container.encode(one)
        case .several(let several): try container.encode(several)
        }
    }
}
