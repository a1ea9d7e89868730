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
    /// else the one line that says why the gateway will not start and which flag fixes it
    /// (`flags`: their names in the program that asks, `rowcast serve`'s by default).
    ///
    /// The gateway serves plain HTTP only (TLS would add a second copy of BoringSSL to every
    /// build), so beyond loopback a token would cross the network in the clear: tokens beyond
    /// loopback need `plainHTTPAllowed` (a proxy that terminates TLS, on a network trusted
    /// between it and the gateway).
    public func requiresTokens(
        hasKeys: Bool, isLoopback: Bool, plainHTTPAllowed: Bool, flags: TokenFlags = TokenFlags()
    ) -> Result<Bool, TokenKeyError> {
        let flag = flags.secret
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
                        ? "\(flags.mode) required needs a token key: \(flag) FILE (HS256) or a public key file (ES256, RS256)"
                        : "beyond loopback the gateway requires user tokens: give \(flag) FILE (HS256) or a public key file (ES256, RS256), or \(flags.mode) off behind a proxy that authenticates users"
                ))
        }
        guard isLoopback || plainHTTPAllowed else {
            return .failure(
                TokenKeyError(
                    "the gateway serves plain HTTP, so tokens beyond loopback would cross the network in the clear: listen on 127.0.0.1 behind a proxy that terminates TLS, or say \(flags.plainHTTP) if the network to that proxy is trusted"
                ))
        }
        return .success(true)
    }
}

/// The names of the token settings in a refusal's message.
public struct TokenFlags: Sendable {
    /// The secret file's flag (`--token-secret-file`).
    public var secret = "--token-secret-file"
    /// The public key file's flag (`--token-public-key-file`).
    public var publicKey = "--token-public-key-file"
    /// The mode's flag (`--tokens`).
    public var mode = "--tokens"
    /// The flag that accepts plain HTTP beyond loopback (`--allow-plain-http-tokens`).
    public var plainHTTP = "--allow-plain-http-tokens"

    /// `rowcast serve`'s names, or others.
    public init(
        secret: String = "--token-secret-file", publicKey: String = "--token-public-key-file",
        mode: String = "--tokens", plainHTTP: String = "--allow-plain-http-tokens"
    ) {
        self.secret = secret
        self.publicKey = publicKey
        self.mode = mode
        self.plainHTTP = plainHTTP
    }
}
