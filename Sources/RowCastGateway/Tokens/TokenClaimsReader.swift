import Foundation
import RowCastJSON

/// Reads a signature-checked token's claims into a ``TokenGrant``:
///
/// ```json
/// {"sub": "alice", "exp": 1790000000, "feeds": {"profile-*": ["read", "select"], "news": ["read"]}}
/// ```
///
/// `sub` (1 to 256 bytes) and `exp` (seconds since 1970) are required; `nbf`, when present,
/// is honoured; `feeds` maps shell globs of feed names to permissions (`read`, `select`) and
/// may be empty. `aud` (a string or a list of them) must name the gateway's audience and `iss`
/// must be its issuer when the gateway is given them (`--token-audience`, `--token-issuer`);
/// otherwise they, `iat` and `jti` are not checked. An unknown permission refuses the whole
/// token, so a mistyped grant never silently grants less or more.
enum TokenClaimsReader {
    /// The longest user name, in bytes.
    static let maximumUserLength = 256

    /// The grant `claims` give at `now`.
    /// `audience` and `issuer`, when given, are what `aud` and `iss` must name.
    static func grant(
        _ claims: JSONObject, now: Date, audience: String? = nil, issuer: String? = nil
    ) throws(TokenRefusal) -> TokenGrant {
        guard let user = claims["sub"]?.stringValue, !user.isEmpty, user.utf8.count <= maximumUserLength else {
            throw .invalid("\"sub\" must be the user's name, a string of 1 to \(maximumUserLength) bytes")
        }
        guard let exp = claims["exp"]?.numberValue, exp.isFinite else {
            throw .invalid("\"exp\" (the expiry, seconds since 1970) is required")
        }
        if let nbf = claims["nbf"] {
            guard let seconds = nbf.numberValue else {
                throw .invalid("\"nbf\" must be a number of seconds since 1970")
            }
            guard now.timeIntervalSince1970 >= seconds else {
                throw .invalid("it is not valid before \"nbf\" \(seconds)")
            }
        }
        if let issuer, claims["iss"]?.stringValue != issuer {
            throw .invalid(
                claims["iss"] == nil
                    ? "it has no \"iss\"; this gateway takes tokens of issuer \"\(issuer)\""
                    : "its \"iss\" is not \"\(issuer)\", the issuer this gateway takes tokens of")
        }
        if let audience {
            let named: [String]
            switch claims["aud"] {
            case .string(let one)?: named = [one]
            case .array(let list)?: named = list.compactMap(\.stringValue)
            default: named = []
            }
            guard named.contains(audience) else {
                throw .invalid(
                    claims["aud"] == nil
                        ? "it has no \"aud\"; this gateway takes tokens for audience \"\(audience)\""
                        : "its \"aud\" does not name \"\(audience)\", the audience of this gateway")
            }
        }
        guard let feedsValue = claims["feeds"], let feeds = feedsValue.objectValue else {
            throw .invalid(
                "\"feeds\" must be an object of feed patterns and permissions, e.g. {\"profile-*\": [\"read\", \"select\"]}"
            )
        }
        var grants: [String: Set<TokenPermission>] = [:]
        for (pattern, value) in feeds.entries {
            guard !pattern.isEmpty, pattern.utf8.count <= 256 else {
                throw .invalid("a feed pattern in \"feeds\" is 1 to 256 bytes")
            }
            guard let list = value.arrayValue else {
                throw .invalid("\"feeds\".\"\(pattern)\" must be a list of permissions (read, select)")
            }
            var permissions = Set<TokenPermission>()
            for item in list {
                guard let name = item.stringValue, let permission = TokenPermission(rawValue: name) else {
                    throw .invalid(
                        "\"feeds\".\"\(pattern)\" has \(item.jsonText), not a permission; permissions are read and select"
                    )
                }
                permissions.insert(permission)
            }
            grants[pattern] = permissions
        }
        let grant = TokenGrant(user: user, expires: Date(timeIntervalSince1970: exp), feeds: grants)
        if grant.hasExpired(at: now) { throw .expired(user: user) }
        return grant
    }
}
