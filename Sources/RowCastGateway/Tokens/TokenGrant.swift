import Foundation
import RowCastSupport

/// What a verified user token says: who the user is, until when, and what they may do on
/// which feeds. Patterns are the shell globs of CURVE key files' `allow` lines
/// (``FeedPattern``, `fnmatch(3)`).
public struct TokenGrant: Sendable, Equatable {
    /// The user (`sub`), sent to rowcastd with each select as the action's requester.
    public let user: String
    /// When the token stops being accepted (`exp`).
    public let expires: Date
    /// Each feed pattern with the permissions it grants.
    public let feeds: [String: Set<TokenPermission>]

    /// A grant with these members.
    public init(user: String, expires: Date, feeds: [String: Set<TokenPermission>]) {
        self.user = user
        self.expires = expires
        self.feeds = feeds
    }

    /// Whether a pattern that matches `feed` grants `permission`.
    public func allows(_ permission: TokenPermission, feed: String) -> Bool {
        feeds.contains { pattern, permissions in
            permissions.contains(permission) && FeedPattern.matches(pattern, feed)
        }
    }

    /// Whether the token has expired at `now`.
    public func hasExpired(at now: Date) -> Bool { now >= expires }
}
