import Logging
import RowCastEngine

/// Everything rowcastd needs to start, with the embedded defaults of docs/OPERATIONS.md.
public struct DaemonConfiguration: Sendable, Equatable {
    /// The PULL endpoint for fire-and-forget ingest.
    public var ingestEndpoint = "tcp://127.0.0.1:7701"
    /// The ROUTER endpoint for acked requests and queries.
    public var controlEndpoint = "tcp://127.0.0.1:7702"
    /// The PUB endpoint for deltas and events.
    public var publishEndpoint = "tcp://127.0.0.1:7703"
    /// The HTTP endpoint (`/metrics`, `/healthz`, and the web gateway without CURVE):
    /// `tcp://HOST:PORT`, `ipc:///path`, or "" for none (see `HTTPEndpoint`).
    public var httpEndpoint = "tcp://127.0.0.1:7780"
    /// Host names the HTTP endpoint serves besides IP addresses and `localhost`
    /// (`HTTPOriginPolicy.allowedHosts`).
    public var httpAllowedHosts: [String] = []
    /// Origins whose pages may stream and act through the HTTP endpoint, besides its own
    /// (`HTTPOriginPolicy.allowedOrigins`).
    public var httpAllowedOrigins: [String] = []
    /// Origins the gateway's page (on the HTTP endpoint) may load row images from.
    public var httpImageOrigins: [String] = []
    /// Files of HS256 secrets the gateway's user tokens may be signed with.
    public var httpTokenSecretFiles: [String] = []
    /// PEM public key files (ES256, RS256) the gateway's user tokens may be signed for.
    public var httpTokenPublicKeyFiles: [String] = []
    /// What a user token's `aud` must name ("": not checked).
    public var httpTokenAudience = ""
    /// What a user token's `iss` must be ("": not checked).
    public var httpTokenIssuer = ""
    /// Whether the gateway on the HTTP endpoint needs user tokens: `auto` (with a token key,
    /// and always beyond loopback), `required` or `off`.
    public var httpTokens = "auto"
    /// How long a request head may take to arrive at the HTTP endpoint, in milliseconds
    /// (`HTTPConnectionLimits.headerTimeout`).
    public var httpHeaderTimeoutMilliseconds = 60_000
    /// How long a kept-alive HTTP connection may wait for its next request, in milliseconds.
    public var httpIdleTimeoutMilliseconds = 60_000
    /// How long an HTTP connection may take no data while data waits for it before it is reset,
    /// in milliseconds.
    public var httpWriteTimeoutMilliseconds = 30_000
    /// How many HTTP connections one client address may hold at once.
    public var httpMaxConnectionsPerPeer = 64
    /// How long the loop may go without finishing a pass before `/healthz` says `stuck`, in
    /// milliseconds.
    public var healthStallMilliseconds = 5000
    /// Whether a TCP endpoint beyond loopback may be bound without CURVE (anyone who reaches
    /// it may then publish, reset and read every feed). Off: such a configuration is refused.
    public var allowInsecureTCP = false
    /// The file mode of every `ipc://` socket, in octal ("0660": rowcastd's user and group).
    public var socketMode = "0660"
    /// The group of every `ipc://` socket ("" keeps rowcastd's own group).
    public var socketGroup = ""
    /// Whether TCP endpoints require CURVE, with the ZAP handler checking client keys.
    public var curve = false
    /// The server's CURVE key pair file ("": `<state_directory>/curve/server.key`, generated
    /// when absent).
    public var curveServerKey = ""
    /// The directory of client public keys, one `NAME.key` file per client.
    public var curveClientsDirectory = "/etc/rowcast/clients"
    /// Whether TCP endpoints require CURVE.
    public var curveEnabled: Bool { curve }
    /// Directories scanned for plugins (`librowcast-*.so`), in order.
    public var pluginDirectories: [String] = []
    /// Directories of declarative cell files (`*.yaml`), in order; none by default.
    public var cellDirectories: [String] = []
    /// The largest request accepted, in bytes; larger ones get `too_large`.
    public var maximumMessageBytes = 1 << 20
    /// How long the publisher may stay silent before a heartbeat, in milliseconds.
    public var heartbeatMilliseconds = 1000
    /// The most messages read in one pass (one batch, one delta per feed). Under a flood the
    /// commits still gather up to `DurableEngine.groupedMessageLimit` messages.
    public var batchLimit = 1024
    /// Messages the PUB socket queues per subscriber before dropping (ZMQ_SNDHWM).
    public var publishHighWaterMark = 100_000
    /// Messages each receiving socket queues (ZMQ_RCVHWM).
    public var receiveHighWaterMark = 100_000
    /// Replies the control socket queues per client (ZMQ_SNDHWM); a client that lets more
    /// pile up unread has the newer ones dropped, counted in `status` (`counters.dropped`).
    public var clientReplyQueue = 1000
    /// How many feeds, items, sections and bytes clients may make rowcastd hold.
    public var stateLimits = EngineLimits()
    /// How long closing sockets may wait to deliver what is queued, in milliseconds.
    public var lingerMilliseconds = 2000
    /// How long a stop (SIGTERM, SIGINT) may take, drain and linger included, before the
    /// process exits 70 without a clean stop, in milliseconds.
    public var drainTimeoutMilliseconds = 10_000

    /// Where the durable store lives (`--state-dir`; `$STATE_DIRECTORY` under systemd).
    public var stateDirectory = "./.rowcast"
    /// The durable store (`--store`, `StoreLocation`): "" for SQLite in `stateDirectory`.
    public var store = ""
    /// This node's name in a cluster (`--node-name`, `ClusterRules`): "" runs alone. Nodes
    /// given the same PostgreSQL `store` and distinct names share the feeds' partitions.
    public var nodeName = ""
    /// How long a node's lease on its partitions lasts without a renewal, in milliseconds: a
    /// dead node's partitions are taken over within about this time.
    public var leaseMilliseconds = 3000
    /// The host other nodes and clients reach this node's endpoints at, in place of a wildcard
    /// (`tcp://*:7702`) or a loopback address; "" keeps the bound address.
    public var advertiseHost = ""
    /// How hard each commit pushes data to disk (SQLite `synchronous`).
    public var durability: Durability = .normal
    /// The shortest time between the starts of two commits of ingest-only batches, in
    /// microseconds (see `DurableEngine.commitDue`); 0 commits every batch at once.
    public var commitIntervalMicroseconds = 500
    /// How many engine loops serve the feeds, each those of its partitions on a thread of its
    /// own (`EngineThreadGroup`); 1 runs the one loop that owns the sockets itself.
    public var engineThreads = 1

    /// Where plugins run: each in a host process of its own, or inside rowcastd.
    public var pluginIsolation: PluginIsolation = .process
    /// The `rowcast-plugin-host` executable (by default the one next to rowcastd).
    public var pluginHost = "/usr/local/bin/rowcast-plugin-host"
    /// How long one plugin callback may run before its host is killed, in milliseconds.
    public var pluginTimeoutMilliseconds = 1000
    /// Each plugin host's address-space limit, in MiB (0: none).
    public var pluginMemoryMegabytes = 1024
    /// The user plugin hosts run as when rowcastd runs as root ("" keeps root).
    public var pluginUser = "nobody"
    /// Plugins (NAME of `librowcast-NAME.so`) whose hosts run without seccomp, Landlock and a
    /// network namespace, because their renders need more; none by default.
    public var pluginUnconfined: [String] = []

    /// The lowest level logged.
    public var logLevel: Logger.Level = .info

    /// Start even when `rowcast.position` shows history the database lost (every feed then
    /// starts a new epoch). A decision for one start (`--accept-state-loss`), never a key of
    /// the configuration file.
    public var acceptStateLoss = false

    /// The embedded defaults.
    public init() {}

    /// The largest frame libzmq accepts (ZMQ_MAXMSGSIZE): 64 × `maximumMessageBytes` + 64 KiB,
    /// at most 1 GiB + 64 KiB. Everything up to it is read (its first bytes only) and answered
    /// `too_large`; a bigger frame makes libzmq close the sender's connection before rowcastd
    /// sees it (docs/PROTOCOL.md, "Message size").
    public var hardMessageBytes: Int {
        min(64 * maximumMessageBytes, 1 << 30) + 64 * 1024
    }
}

/// SQLite's `synchronous` setting for the store, as docs/OPERATIONS.md explains: with WAL,
/// `normal` survives a process crash, `full` also survives power loss.
public enum Durability: String, Sendable, Equatable, CaseIterable {
    /// Survives a crash of rowcastd; the last commits may be lost on power loss.
    case normal
    /// Every commit is on disk before its acks go out.
    case full
}
