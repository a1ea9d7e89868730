import Foundation
import JWTKit

/// Claims for the tests to sign, any of them left out when nil.
struct TestClaims: JWTPayload {
    var sub: String?
    var exp: Double?
    var feeds: [String: [String]]?
    var nbf: Double?

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
