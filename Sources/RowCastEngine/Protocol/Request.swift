import RowCastJSON
import RowCastWire

/// One decoded request: what to do, to which feed, and the caller's correlation fields.
public struct Request: Sendable, Equatable {
    /// What the request asks for.
    public enum Operation: Sendable, Equatable {
        /// Insert an item, or replace the item with its id.
        case upsert(ItemInput)
        /// Delete the item with this id.
        case delete(id: String)
        /// Declare a section or replace its order, type and header.
        case section(SectionInput)
        /// Delete a section and every item in it.
        case deleteSection(id: String)
        /// Replace the whole feed.
        case reset(items: [ItemInput], sections: [SectionInput])
        /// Start a reset sent in parts (a staged reset); the reply names it.
        case resetBegin
        /// Add a part to a staged reset; a part number already received is applied once.
        case resetAppend(token: String, part: Int, items: [ItemInput], sections: [SectionInput])
        /// Replace the feed with everything a staged reset received, at once.
        case resetCommit(token: String)
        /// Remove the feed with its history and events, freeing its place under
        /// `limits.max_feeds`; subscribers get a last delta that empties it.
        case drop
        /// The feed's current state, whole or the rows of `window`; in parts of about
        /// `limits.max_message_bytes` each when `chunked` (otherwise a snapshot over that size
        /// is refused).
        case snapshot(chunked: Bool, window: SnapshotWindow?)
        /// The feed's deltas after `seq` of `epoch`, from its recent history.
        case since(epoch: String, seq: UInt64)
        /// Daemon status, listing the feeds whose names sort after `after` (all when nil) as
        /// far as the message limit allows.
        case status(after: String?)
        /// Which plugin renders which type.
        case plugins
        /// Run a row's action handler, with the value the request carried (nil: none), as the
        /// `user` it asserts (nil: as the client itself; asserting one needs `act_as`).
        case select(id: String, action: String, value: JSONValue?, user: String? = nil)
        /// The feed's action events after event sequence `after`, at most `limit` of them.
        case events(after: UInt64, limit: Int)
        /// Where the row of item `id` is: its section and index, as of the feed's seq.
        case locate(id: String)
        /// Re-read the daemon's configuration and rescan its plugin directories. The engine
        /// does not answer it: it hands it to the daemon (`EngineOutput.deferred`).
        case reload
        /// List the quarantined items, or (`retry`) render them again, all or those of one
        /// feed or one item.
        case quarantine(retry: Bool, id: String?)
    }

    /// The five fields as values.
    private struct Parts: Sendable, Equatable {
        var op: String
        var feed: String?
        var operation: Operation
        var req: RequestID?
        var client: String?
    }

    /// The fields, in one immutable object: a request is handed on several times on its way
    /// through a batch (decoded, rendered ahead, applied, answered), and each copy of five
    /// fields holding strings and arrays retained and released every one of them. A copy now
    /// retains one object; a change makes a new one.
    private final class Fields: Sendable {
        let parts: Parts
        init(_ parts: Parts) { self.parts = parts }
    }

    private var fields: Fields

    /// Replaces the fields with `parts` changed by `change`.
    private mutating func change(_ change: (inout Parts) -> Void) {
        var parts = fields.parts
        change(&parts)
        fields = Fields(parts)
    }

    /// The `op` as sent.
    public var op: String {
        get { fields.parts.op }
        set { change { $0.op = newValue } }
    }
    /// The feed the request concerns (nil for `status` and `plugins`).
    public var feed: String? {
        get { fields.parts.feed }
        set { change { $0.feed = newValue } }
    }
    /// What to do.
    public var operation: Operation {
        get { fields.parts.operation }
        set { change { $0.operation = newValue } }
    }
    /// The caller's request id, echoed in the reply exactly as sent.
    public var req: RequestID? {
        get { fields.parts.req }
        set { change { $0.req = newValue } }
    }
    /// The caller's client name, echoed in the reply.
    public var client: String? {
        get { fields.parts.client }
        set { change { $0.client = newValue } }
    }

    /// A request from its parts.
    public init(op: String, feed: String?, operation: Operation, req: RequestID? = nil, client: String? = nil) {
        fields = Fields(Parts(op: op, feed: feed, operation: operation, req: req, client: client))
    }

    /// Equal when every field is (the same values, not necessarily the same object).
    public static func == (lhs: Request, rhs: Request) -> Bool {
        lhs.fields === rhs.fields || lhs.fields.parts == rhs.fields.parts
    }

    /// Whether applying the request writes to the store: a feed operation, a `select` (its
    /// event and change), a quarantine retry (the rows it brings back move the seq).
    public var writesState: Bool {
        switch operation {
        case .select, .quarantine(retry: true, _): return true
        default: return isMutation
        }
    }

    /// Whether the request changes a feed (as opposed to querying).
    public var isMutation: Bool {
        switch operation {
        case .upsert, .delete, .section, .deleteSection, .reset, .resetCommit, .drop: return true
        case .resetBegin, .resetAppend, .snapshot, .since, .status, .plugins, .select, .reload, .quarantine, .events,
            .locate:
            return false
        }
    }
}
