import Foundation
import RowCastSupport

/// The user token an open connection runs under: its current grant, which a fresh token of
/// the same user replaces without reconnecting (the WebSocket message
/// `{"type":"token","token":"..."}`), and its expiry, at which the connection's stream ends
/// with a `token_expired` event. Thread-safe: the grant is behind a lock.
public final class ConnectionCredentials: Sendable {
    /// What verifies a fresh token.
    private let verifier: TokenVerifier
    /// The grant in force.
    private let current: LockedValue<TokenGrant>

    /// Credentials of `grant`, refreshed through `verifier`.
    public init(_ grant: TokenGrant, verifier: TokenVerifier) {
        self.verifier = verifier
        current = LockedValue(grant)
    }

    /// The grant in force now.
    public var grant: TokenGrant { current.withLock { $0 } }

    /// The connection's user (`sub`), which no refresh changes.
    public var user: String { grant.user }

    /// When the grant in force expires.
    public var expires: Date { grant.expires }

    /// Whether the grant in force has expired at `now`.
    public func hasExpired(at now: Date = Date()) -> Bool { grant.hasExpired(at: now) }

    /// Replaces the grant with `token`'s, verified at `now`, when it names the same user;
    /// throws the refusal (the grant in force stays) otherwise. Returns the new grant.
    @discardableResult
    public func replace(with token: String, now: Date = Date()) async throws(TokenRefusal) -> TokenGrant {
        let fresh = try await check(token, now: now)
        install(fresh)
        return fresh
    }

    /// The grant of `token`, verified at `now`, when it names the connection's user; throws the
    /// refusal otherwise. Nothing changes until `install`.
    public func check(_ token: String, now: Date = Date()) async throws(TokenRefusal) -> TokenGrant {
        let fresh = try await verifier.verify(token, now: now)
        let user = self.user
        guard fresh.user == user else { throw .userChanged(from: user, to: fresh.user) }
        return fresh
    }

    /// Puts `grant` (from `check`) in force.
    public func install(_ grant: TokenGrant) {
        current.withLock { $0 = grant }
    }
}
