import ArgumentParser
import Dispatch
import Foundation
import RowCastClient
import RowCastRelay
import RowCastSupport

/// `rowcast relay`: fans rowcastd's publish socket out past one machine, and forwards the
/// read-only requests replicas make, so subscribers connect to a relay near them.
struct RelayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Relay a rowcastd's deltas and read-only requests to subscribers near this host.",
        discussion: """
            Topology: one rowcastd per group of feeds; one relay per region or host group; \
            subscribers and replicas connect to the relay near them as if it were rowcastd:

              producers -> rowcastd --publish--> relay (XSUB -> XPUB) --> subscribers
                                    --control--> relay (DEALER <- ROUTER) <-- replicas

            The publish side is ZeroMQ's own proxy (zmq_proxy_steerable) between an XSUB \
            connected to --upstream-publish and an XPUB bound at --publish: subscriptions go \
            up, deltas, positions, events and heartbeats come down unchanged. The control side \
            binds a ROUTER at --control and forwards snapshot (in parts too), since, status and \
            plugins to --upstream-control over one DEALER, each reply back to the client that \
            asked. Every other operation (upsert, reset, select, reload, ...) is refused with \
            the error read_only and never reaches rowcastd: producers publish to rowcastd \
            itself. A replica pointed at a relay's --publish and --control endpoints \
            (rowcast subscribe --replica --publish ... --control ...) behaves as with rowcastd.

            With --server-key and --key, both upstream connections use CURVE with this \
            relay's key (rowcastd checks that key's read permissions). The downstream \
            endpoints are plain: bind them where only trusted peers reach.

            Once both endpoints are bound it prints one line, \
            "rowcast relay ready publish=<endpoint> control=<endpoint>", with the real ports. \
            SIGINT or SIGTERM stops it cleanly (exit status 0). Relays can be chained: a relay's \
            endpoints are upstream endpoints for another.

            Example:
              rowcast relay --upstream-publish tcp://core.example:7703 \\
                --upstream-control tcp://core.example:7702 \\
                --publish tcp://10.1.0.5:7703 --control tcp://10.1.0.5:7702
            """
    )

    @Option(
        name: .customLong("upstream-publish"),
        help: ArgumentHelp(
            "rowcastd's publish endpoint, which the relay subscribes to (or another relay's --publish). Repeat it for each node of a cluster: subscribers then get every feed's deltas whichever node owns it.",
            valueName: "endpoint"))
    var upstreamPublish: [String] = []

    @Option(
        name: .customLong("upstream-control"),
        help: ArgumentHelp(
            "rowcastd's control endpoint, which read-only requests are forwarded to (or another relay's --control).",
            valueName: "endpoint"))
    var upstreamControl: String

    @Option(
        help: ArgumentHelp(
            "The endpoint to bind for subscribers (XPUB), e.g. tcp://0.0.0.0:7703 or tcp://127.0.0.1:* .",
            valueName: "endpoint"))
    var publish: String

    @Option(help: ArgumentHelp("The endpoint to bind for replicas' requests (ROUTER).", valueName: "endpoint"))
    var control: String

    @Option(
        name: .customLong("server-key"),
        help: ArgumentHelp(
            "Connect upstream with CURVE to a rowcastd with this public key: 40 characters of Z85, or its server.pub (a file that exists is read as one). Needs --key. [env: ROWCAST_SERVER_KEY]",
            valueName: "key-or-file"))
    var serverKeyFlag: String?

    @Option(
        name: .customLong("key"),
        help: ArgumentHelp(
            "This relay's CURVE key pair: the NAME.key file rowcast keygen wrote. Needs --server-key. [env: ROWCAST_KEY]",
            valueName: "file"))
    var keyFlag: String?

    @Option(
        help: ArgumentHelp(
            "Requests that may wait for rowcastd; past that a request is refused with unavailable.", valueName: "count")
    )
    var queue: Int = 1000

    @Option(
        name: .customLong("high-water-mark"),
        help: ArgumentHelp(
            "Messages held for each subscriber before it misses some (it then catches up as from any gap); rowcastd's default.",
            valueName: "count"))
    var highWaterMark: Int = 100_000

    /// `--server-key`, else `ROWCAST_SERVER_KEY`.
    private var serverKey: String? { serverKeyFlag ?? EndpointSource.variable("ROWCAST_SERVER_KEY") }
    /// `--key`, else `ROWCAST_KEY`.
    private var key: String? { keyFlag ?? EndpointSource.variable("ROWCAST_KEY") }

    func validate() throws {
        guard !upstreamPublish.isEmpty else {
            throw ValidationError("--upstream-publish is required: rowcastd's publish endpoint (one per cluster node)")
        }
        let upstreams = upstreamPublish.map { ("--upstream-publish", $0) } + [("--upstream-control", upstreamControl)]
        for (name, endpoint) in upstreams + [("--publish", publish), ("--control", control)] {
            if let problem = EndpointSyntax.problem(with: endpoint) { throw ValidationError("\(name): \(problem)") }
        }
        for (name, endpoint) in upstreams where endpoint.contains("*") {
            throw ValidationError(
                "\(name): \(endpoint) has a wildcard; the relay connects there, so name rowcastd's host and port")
        }
        guard publish != control || publish.hasSuffix(":*") else {
            throw ValidationError("--publish and --control must be two endpoints, both are \(publish)")
        }
        guard queue > 0 else { throw ValidationError("--queue must be at least 1, got \(queue)") }
        guard highWaterMark >= 0 else {
            throw ValidationError("--high-water-mark must be 0 (no limit) or more, got \(highWaterMark)")
        }
        switch (serverKey, key) {
        case (.some, nil):
            throw ValidationError(
                "--server-key (or ROWCAST_SERVER_KEY) needs --key (or ROWCAST_KEY): this relay's key pair, from rowcast keygen"
            )
        case (nil, .some):
            throw ValidationError(
                "--key (or ROWCAST_KEY) needs --server-key (or ROWCAST_SERVER_KEY): rowcastd's public key, in its server.pub"
            )
        default: break
        }
    }

    func run() throws {
        try reportingErrors {
            let curve = try serverKey.flatMap { serverKey throws(RowCastClientError) in
                try key.map { key throws(RowCastClientError) in
                    try CurveCredentials.load(serverKey: serverKey, keyFile: key)
                }
            }
            var settings = RelayConfiguration(
                upstreamPublish: upstreamPublish[0], upstreamControl: upstreamControl, publish: publish,
                control: control, curve: curve, upstreamQueue: queue, highWaterMark: highWaterMark)
            settings.otherUpstreamPublishes = Array(upstreamPublish.dropFirst())
            let relay: Relay
            do throws(RelayError) {
                relay = try Relay.start(settings)
            } catch {
                throw RowCastClientError(code: "relay_failed", message: error.message)
            }
            let signals = Self.stopOnSignals(relay)
            defer { signals.forEach { $0.cancel() } }
            Output.line("rowcast relay ready publish=\(relay.publishEndpoint) control=\(relay.controlEndpoint)")
            do throws(RelayError) {
                try relay.wait()
            } catch {
                throw RowCastClientError(code: "relay_failed", message: error.message)
            }
            let counts = relay.counters.snapshot()
            Output.note(
                "relay stopped: \(counts.forwarded) requests forwarded, \(counts.refused) refused, \(counts.replies) replies passed back"
            )
        }
    }

    /// SIGINT and SIGTERM stop `relay` (handled on a dispatch queue, not by the default action).
    private static func stopOnSignals(_ relay: Relay) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { relay.stop() }
            source.resume()
            return source
        }
    }
}
