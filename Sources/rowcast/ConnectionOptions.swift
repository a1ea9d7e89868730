import ArgumentParser
import RowCastClient

/// The CURVE keys and the reply timeout, shared by every subcommand that talks to the daemon.
/// The keys can also come from the environment (ROWCAST_SERVER_KEY, ROWCAST_KEY); a flag wins
/// over its variable.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .customLong("server-key"),
        help: ArgumentHelp(
            "Connect with CURVE to a daemon with this public key: 40 characters of Z85, or a file with a public-key line (the daemon's server.pub; a file that exists is read as one). Needs --key. [env: ROWCAST_SERVER_KEY]",
            valueName: "key-or-file"))
    var serverKeyFlag: String?

    @Option(
        name: .customLong("key"),
        help: ArgumentHelp(
            "This client's CURVE key pair: the NAME.key file rowcast keygen wrote. Needs --server-key. [env: ROWCAST_KEY]",
            valueName: "file"))
    var keyFlag: String?

    @Option(
        help: ArgumentHelp(
            "Seconds to wait for each reply (and, for subscribe with --count or --until-seq, for each next message) before giving up.",
            valueName: "seconds"))
    var timeout: Double = 5

    /// `--server-key`, else `ROWCAST_SERVER_KEY`.
    var serverKey: String? { serverKeyFlag ?? EndpointSource.variable("ROWCAST_SERVER_KEY") }
    /// `--key`, else `ROWCAST_KEY`.
    var key: String? { keyFlag ?? EndpointSource.variable("ROWCAST_KEY") }

    func validate() throws {
        guard timeout > 0, timeout.isFinite else {
            throw ValidationError("--timeout must be a positive number of seconds")
        }
        switch (serverKey, key) {
        case (.some, nil):
            throw ValidationError(
                "--server-key (or ROWCAST_SERVER_KEY) needs --key (or ROWCAST_KEY): the key pair rowcast keygen wrote")
        case (nil, .some):
            throw ValidationError(
                "--key (or ROWCAST_KEY) needs --server-key (or ROWCAST_SERVER_KEY): the daemon's public key, in its server.pub"
            )
        default: break
        }
    }

    /// ``timeout`` as a duration.
    var timeoutDuration: Duration { .seconds(fractional: timeout) }

    /// The CURVE credentials given, or nil for a plain connection.
    func curve() throws(RowCastClientError) -> CurveCredentials? {
        guard let serverKey, let key else { return nil }
        return try CurveCredentials.load(serverKey: serverKey, keyFile: key)
    }
}
