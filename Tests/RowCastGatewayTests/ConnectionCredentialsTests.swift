import Foundation
import Testing

@testable import RowCastGateway

@Suite struct ConnectionCredentialsTests {
    static let feeds = ["profile-*": ["read", "select"]]

    /// Credentials of alice's token that expires in `seconds`.
    func credentials(expiresIn seconds: Double) async throws -> ConnectionCredentials {
        let verifier = try await TokenVerifier().adding(secret: TokenSigning.secret)
        let token = try await TokenSigning.hs256(.user("alice", expiresIn: seconds, feeds: Self.feeds))
        return ConnectionCredentials(try await verifier.verify(token), verifier: verifier)
    }

    @Test func aFreshTokenOfTheSameUserMovesTheExpiry() async throws {
        let credentials = try await credentials(expiresIn: 60)
        let before = credentials.expires
        let fresh = try await TokenSigning.hs256(.user("alice", expiresIn: 3600, feeds: ["profile-*": ["read"]]))
        let grant = try await credentials.replace(with: fresh)
        #expect(credentials.expires == grant.expires && credentials.expires > before.addingTimeInterval(3000))
        #expect(!credentials.grant.allows(.select, feed: "profile-alice"), "the fresh token's feeds are in force")
        #expect(credentials.user == "alice")
    }

    @Test func anotherUsersTokenIsRefusedAndTheOldOneStays() async throws {
        let credentials = try await credentials(expiresIn: 60)
        let before = credentials.grant
        let bobs = try await TokenSigning.hs256(.user("bob", expiresIn: 3600, feeds: Self.feeds))
        await #expect(throws: TokenRefusal.userChanged(from: "alice", to: "bob")) {
            try await credentials.replace(with: bobs)
        }
        #expect(credentials.grant == before)
    }

    @Test func anExpiredOrForgedTokenIsRefusedAndTheOldOneStays() async throws {
        let credentials = try await credentials(expiresIn: 60)
        let before = credentials.grant
        let expired = try await TokenSigning.hs256(.user("alice", expiresIn: -1, feeds: Self.feeds))
        await #expect(throws: TokenRefusal.expired(user: "alice")) { try await credentials.replace(with: expired) }
        let forged = try await TokenSigning.hs256(
            .user("alice", expiresIn: 3600, feeds: Self.feeds), secret: Array("not the gateway's secret at all!!".utf8))
        do {
            try await credentials.replace(with: forged)
            Issue.record("a forged token was taken")
        } catch {
            #expect(error.code == "token_invalid")
        }
        #expect(credentials.grant == before)
    }

    @Test func expiryIsTheGrantsExpiry() async throws {
        let credentials = try await credentials(expiresIn: 60)
        #expect(!credentials.hasExpired())
        #expect(credentials.hasExpired(at: credentials.expires))
        #expect(credentials.hasExpired(at: Date().addingTimeInterval(61)))
    }
}
