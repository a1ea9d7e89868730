import RowCastHTTP
import RowCastEngine

/// The name, HELP text and buckets of every metric rowcastd exports at `GET /metrics`
/// (docs/OPERATIONS.md, "Metrics", lists the same). Counters end in `_total`, durations are
/// in seconds, every name starts with `rowcast_`.
public enum DaemonMetricNames {
    /// Requests received on the ingest and control sockets.
    public static let received = "rowcast_items_received_total"
    /// Feed operations applied.
    public static let applied = "rowcast_items_applied_total"
    /// Refusals, labelled `code`.
    public static let rejected = "rowcast_items_rejected_total"
    /// Feed deltas published.
    public static let deltas = "rowcast_deltas_published_total"
    /// Bytes sent on the publish socket.
    public static let publishedBytes = "rowcast_published_bytes_total"
    /// Replies dropped (a client's reply queue full, or the client gone).
    public static let droppedReplies = "rowcast_replies_dropped_total"
    /// How long one SQLite commit took.
    public static let commitDuration = "rowcast_commit_duration_seconds"
    /// Messages carried by one commit.
    public static let commitBatch = "rowcast_commit_batch_messages"
    /// From a batch's receipt to the send of its deltas.
    public static let publishLatency = "rowcast_publish_latency_seconds"
    /// A plugin host's round trip for one batch, labelled `plugin`.
    public static let renderDuration = "rowcast_render_duration_seconds"
    /// Plugin host faults, labelled `plugin` and `kind`.
    public static let pluginFaults = "rowcast_plugin_faults_total"
    /// Connections to the publish socket.
    public static let subscribers = "rowcast_subscribers"
    /// Feeds held.
    public static let feeds = "rowcast_feeds"
    /// Rows held over every feed.
    public static let rows = "rowcast_rows"
    /// Rows of one feed, labelled `feed` (the largest feeds only, `FeedMetrics`).
    public static let feedRows = "rowcast_feed_rows"
    /// Deltas published for one feed, labelled `feed` (the largest feeds only).
    public static let feedDeltas = "rowcast_feed_deltas_total"
    /// Feeds without series of their own.
    public static let feedSeriesOmitted = "rowcast_feed_series_omitted"

    /// Round trips to a PostgreSQL store's server.
    public static let storeRoundTrips = "rowcast_store_round_trips_total"
    /// Partitions whose leases this cluster node holds.
    public static let clusterPartitions = "rowcast_cluster_partitions_held"
    /// Live cluster nodes, this one included.
    public static let clusterNodes = "rowcast_cluster_nodes"
    /// Lease events of this node, labelled `event` (acquired, taken_over, lost, released).
    public static let clusterLeases = "rowcast_cluster_lease_events_total"
    /// Lease rounds that could not reach the store.
    public static let clusterStoreFailures = "rowcast_cluster_store_failures_total"
    /// Requests forwarded to the nodes that own their feeds, labelled `socket`.
    public static let clusterForwarded = "rowcast_cluster_forwarded_total"
    /// Forwarded requests answered `forward_timeout`.
    public static let clusterForwardTimeouts = "rowcast_cluster_forward_timeouts_total"

    /// Latency buckets: 50 µs to 10 s.
    static let latencyBuckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
        .milliseconds(2.5),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(10),
    ]

    /// Every metric, described.
    public static let descriptions: [MetricDescription] = [
        MetricDescription(
            received,
            help: "Requests received on the ingest and control sockets (each one message: a feed operation or a query)."
        ),
        MetricDescription(applied, help: "Feed operations applied (upsert, delete, section operations, reset)."),
        MetricDescription(
            rejected, help: "Requests and items refused, by error code (docs/PROTOCOL.md lists the codes)."),
        MetricDescription(deltas, help: "Feed deltas published (one per feed that visibly changed in a batch)."),
        MetricDescription(
            publishedBytes,
            help:
                "Bytes sent on the publish socket: topic and body of deltas, errors, events, positions and heartbeats."),
        MetricDescription(
            droppedReplies,
            help:
                "Replies dropped because the client let limits.client_reply_queue replies pile up unread, or was gone."),
        MetricDescription(
            commitDuration, help: "Time one commit took to write its transaction (a group of batches).",
            durationBuckets: latencyBuckets),
        MetricDescription(
            commitBatch, help: "Messages carried by one committed transaction.",
            valueBuckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 100000]),
        MetricDescription(
            publishLatency,
            help: "Time from reading a batch's first message to sending its deltas (rendering and commit included).",
            durationBuckets: latencyBuckets),
        MetricDescription(
            renderDuration, help: "Round trip of one batch of calls to a plugin host (process isolation), by plugin.",
            durationBuckets: latencyBuckets),
        MetricDescription(
            pluginFaults,
            help: "Plugin host faults, by plugin and kind (crash, timeout); each costs the item in progress."),
        MetricDescription(
            subscribers,
            help:
                "Connections open to the publish socket (accepted minus disconnected, from the ZeroMQ socket monitor)."),
        MetricDescription(feeds, help: "Feeds held."),
        MetricDescription(rows, help: "Rows held over every feed."),
        MetricDescription(
            feedRows, help: "Rows of one feed, for the 50 feeds with the most rows (chosen again every 10 s)."),
        MetricDescription(
            feedDeltas,
            help: "Deltas published for one feed since it got its series, for the 50 feeds with the most rows."),
        MetricDescription(feedSeriesOmitted, help: "Feeds without per-feed series (beyond the 50 largest)."),
        MetricDescription(
            storeRoundTrips,
            help:
                "Round trips to the PostgreSQL store's server (a query, or a whole commit), from the loop and commit threads."
        ),
        MetricDescription(clusterPartitions, help: "Partitions whose leases this cluster node holds."),
        MetricDescription(
            clusterNodes, help: "Live cluster nodes (heartbeat younger than a lease), this one included."),
        MetricDescription(
            clusterLeases,
            help:
                "Lease events of this cluster node, by event: acquired, taken_over (of those, from another node's expired lease), lost (to another node or the store), released."
        ),
        MetricDescription(
            clusterStoreFailures, help: "Lease rounds of this cluster node that could not reach the store."),
        MetricDescription(
            clusterForwarded,
            help: "Requests forwarded to the cluster node that owns their feed, by socket (control, ingest)."),
        MetricDescription(
            clusterForwardTimeouts,
            help: "Forwarded requests answered forward_timeout (no answer from the owner in time)."),
    ]
}
