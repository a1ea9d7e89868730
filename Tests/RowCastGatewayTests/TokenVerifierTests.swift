import Foundation
import JWTKit
import Testing

@testable import RowCastGateway

@Suite struct TokenVerifierTests {
    static let profile = ["profile-*": ["read", "select"], "news": ["read"]]

    func hmacVerifier() async throws -> TokenVerifier {
        try await TokenVerifier().adding(secret: TokenSigning.secret)
    }

    /// The refusal `verify` throws for `token`, or nil when it accepts it.
    func refusal(_ token: String, by verifier: TokenVerifier) async -> TokenRefusal? {
        do throws(TokenRefusal) {
            _ = try await verifier.verify(token)
            return nil
        } catch {
            return error
        }
    }

    @Test func anHS256TokenGrantsItsFeeds() async throws {
        let claims = TestClaims.user("alice", feeds: Self.profile)
        let grant = try await hmacVerifier().verify(try await TokenSigning.hs256(claims))
        #expect(grant.user == "alice")
        #expect(abs(grant.expires.timeIntervalSince1970 - claims.exp!) < 1)
        #expect(grant.allows(.read, feed: "profile-alice") && grant.allows(.select, feed: "profile-alice"))
        #expect(grant.allows(.read, feed: "news") && !grant.allows(.select, feed: "news"), "read-only")
        #expect(!grant.allows(.read, feed: "profiles") && !grant.allows(.read, feed: "admin"), "outside the globs")
    }

    @Test func anExpiredTokenIsTokenExpired() async throws {
        let token = try await TokenSigning.hs256(.user("alice", expiresIn: -5, feeds: Self.profile))
        #expect(await refusal(token, by: try await hmacVerifier())?.code == "token_expired")
    }

    @Test func aWrongSignatureIsTokenInvalid() async throws {
        let other = Array("another secret of thirty-two bytes!".utf8)
        let token = try await TokenSigning.hs256(.user("alice", feeds: Self.profile), secret: other)
        let refused = await refusal(token, by: try await hmacVerifier())
        #expect(refused?.code == "token_invalid")
        #expect(refused?.message.contains("signature") == true)
        // An expired token with a wrong signature says nothing of its expiry.
        let expired = try await TokenSigning.hs256(.user("alice", expiresIn: -5, feeds: Self.profile), secret: other)
        #expect(await refusal(expired, by: try await hmacVerifier())?.code == "token_invalid")
    }

    @Test func anES256TokenIsVerifiedWithThePublicKey() async throws {
        let key = ES256PrivateKey()
        let verifier = try await TokenVerifier().adding(publicKeyPEM: key.publicKey.pemRepresentation)
        #expect(verifier.algorithms == ["ES256"])
        let grant = try await verifier.verify(try await TokenSigning.es256(.user("bob", feeds: Self.profile), key: key))
        #expect(grant.user == "bob")
        let forged = try await TokenSigning.es256(.user("bob", feeds: Self.profile), key: ES256PrivateKey())
        #expect(await refusal(forged, by: verifier)?.code == "token_invalid")
        // The public key's own text as an HMAC secret: a token of another algorithm than the
        // key's is never checked with it.
        let confused = try await TokenSigning.hs256(
            .user("bob", feeds: Self.profile), secret: Array(key.publicKey.pemRepresentation.utf8))
        let refused = await refusal(confused, by: verifier)
        #expect(refused?.code == "token_invalid" && refused?.message.contains("HS256") == true)
    }

    @Test func rotationAcceptsEitherKey() async throws {
        let old = Array("the old secret, thirty-two bytes!!".utf8)
        let verifier = try await hmacVerifier().adding(secret: old)
        for secret in [TokenSigning.secret, old] {
            let token = try await TokenSigning.hs256(.user("alice", feeds: Self.profile), secret: secret)
            #expect(try await verifier.verify(token).user == "alice")
        }
        let expired = try await TokenSigning.hs256(.user("alice", expiresIn: -5, feeds: Self.profile), secret: old)
        #expect(await refusal(expired, by: verifier)?.code == "token_expired", "the second key's expiry is told")
    }

    @Test func claimsThatAreWrongAreTokenInvalid() async throws {
        let verifier = try await hmacVerifier()
        let now = Date().timeIntervalSince1970
        let cases: [(TestClaims, String)] = [
            (TestClaims(sub: "alice", exp: nil, feeds: Self.profile), "\"exp\""),
            (TestClaims(sub: nil, exp: now + 60, feeds: Self.profile), "\"sub\""),
            (TestClaims(sub: "", exp: now + 60, feeds: Self.profile), "\"sub\""),
            (TestClaims(sub: "alice", exp: now + 60, feeds: nil), "\"feeds\""),
            (TestClaims(sub: "alice", exp: now + 60, feeds: ["a*": ["read", "write"]]), "write"),
            (TestClaims(sub: "alice", exp: now + 60, feeds: Self.profile, nbf: now + 600), "nbf"),
        ]
        for (claims, named) in cases {
            let refused = await refusal(try await TokenSigning.hs256(claims), by: verifier)
            #expect(refused?.code == "token_invalid", "\(claims)")
            #expect(refused?.message.contains(named) == true, "\(refused?.message ?? "accepted")")
        }
    }

    @Test func audienceAndIssuerAreCheckedWhenTheGatewayIsGivenThem() async throws {
        let verifier = try await hmacVerifier().requiring(
            audience: "feeds.example.com", issuer: "https://id.example.com")
        func claims(aud: TestAudience?, iss: String?) -> TestClaims {
            var claims = TestClaims.user("alice", feeds: Self.profile)
            claims.aud = aud
            claims.iss = iss
            return claims
        }
        let accepted: [TestClaims] = [
            claims(aud: .one("feeds.example.com"), iss: "https://id.example.com"),
            claims(aud: .several(["other", "feeds.example.com"]), iss: "https://id.example.com"),
        ]
        for claims in accepted {
            #expect(try await verifier.verify(try await TokenSigning.hs256(claims)).user == "alice", "\(claims)")
        }
        let refused: [(TestClaims, String)] = [
            (claims(aud: nil, iss: "https://id.example.com"), "no \"aud\""),
            (claims(aud: .one("other"), iss: "https://id.example.com"), "\"aud\" does not name"),
            (claims(aud: .several(["other", "more"]), iss: "https://id.example.com"), "\"aud\" does not name"),
            (claims(aud: .one("feeds.example.com"), iss: nil), "no \"iss\""),
            (claims(aud: .one("feeds.example.com"), iss: "https://evil.example.com"), "\"iss\" is not"),
        ]
        for (claims, named) in refused {
            let refusal = await refusal(try await TokenSigning.hs256(claims), by: verifier)
            #expect(refusal?.code == "token_invalid", "\(claims)")
            #expect(refusal?.message.contains(named) == true, "\(refusal?.message ?? "accepted")")
        }
        // Without them set, neither claim is looked at.
        let plain = try await hmacVerifier()
        let other = try await TokenSigning.hs256(claims(aud: .one("other"), iss: "https://evil.example.com"))
        #expect(try await plain.verify(other).user == "alice")
    }

    @Test func keyFilesAreRefusedNamingTheFileAndWhy() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rowcast-keys-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let short = directory.appendingPathComponent("short").path
        try Data("too short\n".utf8).write(to: URL(fileURLWithPath: short))
        let notPEM = directory.appendingPathComponent("not.pem").path
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: notPEM))
        let cases: [([String], [String], String, String)] = [
            ([directory.appendingPathComponent("missing").path], [], "missing", "no such file"),
            ([directory.path], [], directory.path, "cannot read"),
            ([short], [], short, "at least 32 bytes"),
            ([], [notPEM], notPEM, "not a PEM public key"),
        ]
        for (secrets, publicKeys, file, why) in cases {
            do throws(TokenKeyError) {
                _ = try await TokenVerifier.load(secretFiles: secrets, publicKeyFiles: publicKeys)
                Issue.record("\(file) was taken as a key")
            } catch {
                #expect(error.message.contains(file) && error.message.contains(why), "\(error.message)")
            }
        }
    }

    @Test(arguments: ["", "abc", "a.b", "a.b.c", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."])
    func malformedTokensAreTokenInvalid(token: String) async throws {
        #expect(await refusal(token, by: try await hmacVerifier())?.code == "token_invalid")
    }

    @Test func shortSecretsAndOtherFilesAreRefusedAsKeys() async throws {
        await #expect(throws: TokenKeyError.self) { try await TokenVerifier().adding(secret: Array("short".utf8)) }
        await #expect(throws: TokenKeyError.self) {
            try await TokenVerifier().adding(
                publicKeyPEM: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        }
        await #expect(throws: TokenKeyError.self) {
            try await TokenVerifier.load(secretFiles: ["/nonexistent/secret"], publicKeyFiles: [])
        }
    }

    @Test func secretFilesLoseTheirTrailingNewline() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rowcast-secret-\(UUID())").path
        try Data(TokenSigning.secret + [0x0A]).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let verifier = try await TokenVerifier.load(secretFiles: [path], publicKeyFiles: [])
        let token = try await TokenSigning.hs256(.user("alice", feeds: Self.profile))
        #expect(try await verifier.verify(token).user == "alice")
    }
}
