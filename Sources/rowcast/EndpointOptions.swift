import ArgumentParser
import Foundation
import RowCastClient

/// The daemon's endpoints, CURVE keys and the reply timeout, shared by every subcommand. Each
/// endpoint and key can also come from the environment (ROWCAST_CONTROL, ROWCAST_PUBLISH,
/// ROWCAST_INGEST, ROWCAST_SERVER_KEY, ROWCAST_KEY); a flag wins over its variable.
struct EndpointOptions: ParsableArguments {
    /// The process environment, read once.
    static let environment = ProcessInfo.processInfo.environment

    @Option(help: ArgumentHelp("The daemon's control endpoint (ROUTER): acked requests and queries. [env: ROWCAST_CONTROL]", valueName: "endpoint"))
    var control = EndpointOptions.environment["ROWCAST_CONTROL"] ?? RowCastEndpoints.control

    @Option(help: ArgumentHelp("The daemon's publish endpoint (PUB): deltas and events. [env: ROWCAST_PUBLISH]", valueName: "endpoint"))
    var publish = EndpointOptions.environment["ROWCAST_PUBLISH"] ?? RowCastEndpoints.publish

    @Option(help: ArgumentHelp("The daemon's ingest endpoint (PULL): requests sent with --no-ack. [env: ROWCAST_INGEST]", valueName: "endpoint"))
    var ingest = EndpointOptions.environment["ROWCAST_INGEST"] ?? RowCastEndpoints.ingest

    @Option(name: .customLong("server-key"), help: ArgumentHelp("Connect with CURVE to a daemon with this public key: 40 characters of Z85, or a file with a public-key line (the daemon's server.pub). Needs --key. [env: ROWCAST_SERVER_KEY]", valueName: "key-or-file"))
    var serverKeyFlag: String?

    @Option(name: .customLong("key"), help: ArgumentHelp("This client's CURVE key pair: the NAME.key file rowcast keygen wrote. Needs --server-key. [env: ROWCAST_KEY]", valueName: "file"))
    var keyFlag: String?

    @Option(help: ArgumentHelp("Seconds to wait for each reply (and, for subscribe with --count or --until-seq, for each next message) before giving up.", valueName: "seconds"))
    var timeout: Double = 5

    /// `--server-key`, else `ROWCAST_SERVER_KEY`.
    var serverKey: String? { serverKeyFlag ?? Self.environment["ROWCAST_SERVER_KEY"].flatMap { $0.isEmpty ? nil : $0 } }
    /// `--key`, else `ROWCAST_KEY`.
    var key: String? { keyFlag ?? Self.environment["ROWCAST_KEY"].flatMap { $0.isEmpty ? nil : $0 } }

    func validate() throws {
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
        switch (serverKey, key) {
        case (.some, nil): throw ValidationError("--server-key (or ROWCAST_SERVER_KEY) needs --key (or ROWCAST_KEY): the key pair rowcast keygen wrote")
        case (nil, .some): throw ValidationError("--key (or ROWCAST_KEY) needs --server-key (or ROWCAST_SERVER_KEY): the daemon's public key, in its server.pub")
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

    /// A control client for this run, with a client name of its own (the daemon answers a
    /// repeated client and req with its first answer, so names are never shared).
    func makeControlClient() throws(RowCastClientError) -> ControlClient {
        try ControlClient(endpoint: control, timeout: timeoutDuration, clientName: AckedPublisher.randomClientID(), curve: try curve())
    }
}
