/// Whether a gateway requires user tokens (`--tokens`): `auto` requires them when a token key
/// is given or the gateway listens beyond loopback; `required` always; `off` never (behind a
/// proxy that authenticates users itself).
public enum TokenMode: String, Sendable, CaseIterable {
    /// Required with a key or beyond loopback, else off.
    case auto
    /// Always required.
    case required
    /// Never asked for: anyone who reaches the gateway reads what its key may.
    case off

    /// Whether tokens are required with `hasKeys` on an address that `isLoopback` or not;
    /// else the one line that says why the gateway will not start and which flag fixes it.
    ///
    /// The gateway serves plain HTTP only (TLS would add a second copy of BoringSSL to every
    /// build), so beyond loopback a token would cross the network in the clear: tokens beyond
    /// loopback need `plainHTTPAllowed` (a proxy that terminates TLS, on a network trusted
    /// between it and the gateway).
    public func requiresTokens(
        hasKeys: Bool, isLoopback: Bool, plainHTTPAllowed: Bool, flag: String = "--token-secret-file"
    ) -> Result<Bool, TokenKeyError> {
        let required: Bool
        switch self {
        case .off: return .success(false)
        case .required: required = true
        case .auto: required = hasKeys || !isLoopback
        }
        guard required else { return .success(false) }
        guard hasKeys else {
            return .failure(
                TokenKeyError(
                    isLoopback
                        ? "--tokens required needs a token key: \(flag) FILE (HS256) or a public key file (ES256, RS256)"
                        : "beyond loopback the gateway requires user tokens: give \(flag) FILE (HS256) or a public key file (ES256, RS256), or --tokens off behind a proxy that authenticates users"
                ))
        }
        guard isLoopback || plainHTTPAllowed else {
            return .failure(
                TokenKeyError(
                    "the gateway serves plain HTTP, so tokens beyond loopback would cross the network in the clear: listen on 127.0.0.1 behind a proxy that terminates TLS, or say --allow-plain-http-tokens if the network to that proxy is trusted"
                ))
        }
        return .success(true)
    }
}
