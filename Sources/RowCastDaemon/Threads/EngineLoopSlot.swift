import RowCastEngine
import RowCastWire
import ZeroMQ

/// What one engine loop of several (`engine.threads`) is given by its `EngineThreadGroup`: its
/// place among the loops, the feed partitions it serves, the shared store and ZeroMQ context,
/// and the `inproc://` endpoints the group's front thread reaches it on. A loop with a slot
/// binds those instead of the configured endpoints and leaves readiness, STOPPING=1 and the
/// ready line to the group.
struct EngineLoopSlot: @unchecked Sendable {
    /// Its place, 0 to `count - 1`; it names the thread (`rowcastd-loop-0`, …).
    let index: Int
    /// How many loops the group runs.
    let count: Int
    /// The context every loop and the front share (`inproc://` works within one context).
    let context: Context
    /// The store every loop commits to.
    let store: SharedFeedStore
    /// Where the loops' feed and row counts add up for the metrics.
    let totals: LoopTotals
    /// The ranks every loop's remembered answers take.
    let ledgerOrder: LedgerOrder
    /// The feeds each client owns on every loop, for its `max_feeds`.
    let owners: FeedOwnerCounts
    /// The reload the group decided: every loop applies the same configuration, client keys
    /// and plugin and cell files.
    let reload: SharedReload
    /// With CURVE on: the key pair and client keys the loops share with the front (the front
    /// names each message's client; docs/OPERATIONS.md, "Engine threads"); nil with it off.
    var curve: SharedCurve? = nil
    /// On a cluster node: the node's one coordinator, which the group runs; the loop takes the
    /// lease changes of its partitions from its exchange (`exchanges[index]`). Nil otherwise.
    var cluster: ClusterCoordinator? = nil

    /// The partitions this loop serves: those whose index leaves `index` divided by `count`.
    var partitions: Set<Partition> { Self.partitions(of: index, count: count) }

    /// The partitions of loop `index` of `count`.
    static func partitions(of index: Int, count: Int) -> Set<Partition> {
        Set(stride(from: index, to: Partition.count, by: count).compactMap(Partition.init(index:)))
    }

    /// The loop that serves `partition` among `count` loops.
    static func loop(serving partition: Partition, count: Int) -> Int { partition.index % count }

    /// The endpoints the loop binds (ingest, control, publish).
    var endpoints: (ingest: String, control: String, publish: String) { Self.endpoints(of: index) }

    /// The `inproc://` endpoints of loop `index`.
    static func endpoints(of index: Int) -> (ingest: String, control: String, publish: String) {
        (
            "inproc://rowcastd-loop-\(index)-ingest", "inproc://rowcastd-loop-\(index)-control",
            "inproc://rowcastd-loop-\(index)-publish"
        )
    }

    /// The thread name of loop `index`.
    static func threadName(of index: Int) -> String { "rowcastd-loop-\(index)" }
}
