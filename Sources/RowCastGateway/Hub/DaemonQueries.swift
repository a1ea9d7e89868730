import RowCastClient
import RowCastJSON
import ZeroMQ

/// The requests the gateway makes of rowcastd besides keeping replicas: the feed list, whether
/// a feed exists, and a row's action. Each runs on a thread of its own with a control client
/// of its own (``BlockingCall``), named `rowcast-gateway-<random>` like every rowcast client.
struct DaemonQueries: Sendable {
    /// How to reach the daemon.
    let options: GatewayOptions
    /// The shared ZeroMQ context.
    let context: Context

    /// The `status` reply (every page of feeds).
    func status() async throws(RowCastClientError) -> JSONValue {
        try await call("status") { client throws(RowCastClientError) in try client.status() }
    }

    /// Whether `feed` exists, from a `since` at an impossible epoch: the reply names the
    /// feed's epoch exactly when it exists (PROTOCOL.md, "Resuming from history"). Needs
    /// `read` on the feed, as a snapshot does.
    func exists(feed: String) async throws(RowCastClientError) -> Bool {
        try await call("since") { client throws(RowCastClientError) in
            let reply = try client.request(RowCastRequest.since(feed: feed, epoch: "", seq: 0))
            return reply["epoch"]?.stringValue != nil
        }
    }

    /// The sections of the first `limit` rows of `feed` (a window snapshot), for the page's
    /// first paint.
    func firstRows(feed: String, limit: Int) async throws(RowCastClientError) -> [JSONValue] {
        try await firstWindow(feed: feed, limit: limit).sections
    }

    /// The sections holding the first `limit` rows of `feed`, and how many rows it has.
    func firstWindow(feed: String, limit: Int) async throws(RowCastClientError) -> (sections: [JSONValue], total: Int) {
        let reply = try await call("snapshot") { client throws(RowCastClientError) in
            try client.snapshot(feed: feed, offset: 0, around: nil, limit: limit)
        }
        return (reply["sections"]?.arrayValue ?? [], reply["window"]?["total"]?.intValue ?? 0)
    }

    /// The `select` reply of the row `id` of `feed` with `action`, as `rowcast select` gets it;
    /// run as `user` (a token's `sub`) when given.
    func select(
        feed: String, id: String, action: String, value: JSONValue?, user: String? = nil
    ) async throws(RowCastClientError) -> JSONValue {
        try await call("select") { client throws(RowCastClientError) in
            try client.select(feed: feed, id: id, action: action, value: value, user: user)
        }
    }

    /// Runs `body` with a new control client on a thread of its own.
    private func call<Value: Sendable>(
        _ op: String, _ body: @escaping @Sendable (ControlClient) throws(RowCastClientError) -> Value
    ) async throws(RowCastClientError) -> Value {
        let options = options
        let context = context
        return try await BlockingCall.run("rowcast-gateway \(op)") { () throws(RowCastClientError) -> Value in
            let client = try ControlClient(
                endpoint: options.controlEndpoint, context: context, timeout: options.timeout,
                clientName: AckedPublisher.randomClientID(prefix: "rowcast-gateway"), curve: options.curve,
                reportsRefusal: true)
            defer { client.close() }
            return try body(client)
        }
    }
}
