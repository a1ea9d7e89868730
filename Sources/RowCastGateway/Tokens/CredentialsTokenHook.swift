import RowCastJSON

/// What `/socket` does with a `{"type":"token","token":...}` message when tokens are on: the
/// fresh token replaces the connection's (`ConnectionCredentials.replace(with:)`), answered
/// `{"event":"token","user","expires"}`, or is refused with `{"event":"error","code",...}` and
/// the token in force stays. Feeds already followed stay followed; new subscriptions are
/// checked against the fresh token.
struct CredentialsTokenHook: SocketTokenHook {
    /// The connection's credentials.
    let credentials: ConnectionCredentials
    /// Where refusals are counted.
    let metrics: GatewayMetrics?

    /// Replaces the connection's token with `token`, or says why not.
    func refreshToken(_ token: String) async -> JSONValue {
        do throws(TokenRefusal) {
            let grant = try await credentials.replace(with: token)
            return [
                "event": "token", "user": .string(grant.user),
                "expires": .number(grant.expires.timeIntervalSince1970.rounded()),
            ]
        } catch {
            metrics?.tokenRefused(reason: error.code)
            return ["event": "error", "code": .string(error.code), "type": "token", "message": .string(error.message)]
        }
    }
}
