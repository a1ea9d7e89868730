import RowCastKit

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
        /// The feed's full current state; in parts of about `limits.max_message_bytes` each
        /// when `chunked` (otherwise a snapshot over that size is refused).
        case snapshot(chunked: Bool)
        /// The feed's deltas after `seq` of `epoch`, from its recent history.
        case since(epoch: String, seq: UInt64)
        /// Daemon status, listing the feeds whose names sort after `after` (all when nil) as
        /// far as the message limit allows.
        case status(after: String?)
        /// Which plugin renders which type.
        case plugins
        /// Run a row's action handler, with the value the request carried (nil: none).
        case select(id: String, action: String, value: JSONValue?)
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

    /// The fields, in one immutable object: a request is handed on several times on its way
    /// through a batch (decoded, rendered ahead, applied, answered), and each copy of five
    /// fields holding strings and arrays retained and released every one of them. A copy now
    /// retains one object.
    private final class Fields: Sendable {
        let op: String
        let feed: String?
        let operation: Operation
        let req: RequestID?
        let client: String?

        init(op: String, feed: String?, operation: Operation, req: RequestID?, client: String?) {
            self.op = op
            self.feed = feed
            self.operation = operation
            self.req = req
            self.client = client
        }
    }

    private var fields: Fields

    /// The `op` as sent.
    public var op: String {
        get { fields.op }
        set { fields = Fields(op: newValue, feed: feed, operation: operation, req: req, client: client) }
    }
    /// The feed the request concerns (nil for `status` and `plugins`).
    public var feed: String? {
        get { fields.feed }
        set { fields = Fields(op: op, feed: newValue, operation: operation, req: req, client: client) }
    }
    /// What to do.
    public var operation: Operation {
        get { fields.operation }
        set { fields = Fields(op: op, feed: feed, operation: newValue, req: req, client: client) }
    }
    /// The caller's request id, echoed in the reply exactly as sent.
    public var req: RequestID? {
        get { fields.req }
        set { fields = Fields(op: op, feed: feed, operation: operation, req: newValue, client: client) }
    }
    /// The caller's client name, echoed in the reply.
    public var client: String? {
        get { fields.client }
        set { fields = Fields(op: op, feed: feed, operation: operation, req: req, client: newValue) }
    }

    /// A request from its parts.
    public init(op: String, feed: String?, operation: Operation, req: RequestID? = nil, client: String? = nil) {
        fields = Fields(op: op, feed: feed, operation: operation, req: req, client: client)
    }

    /// Equal when every field is (the same values, not necessarily the same object).
    public static func == (lhs: Request, rhs: Request) -> Bool {
        lhs.fields === rhs.fields
            || (lhs.op == rhs.op && lhs.feed == rhs.feed && lhs.operation == rhs.operation && lhs.req == rhs.req && lhs.client == rhs.client)
    }

    /// Whether the request changes a feed (as opposed to querying).
    public var isMutation: Bool {
        switch operation {
        case .upsert, .delete, .section, .deleteSection, .reset, .resetCommit: return true
        case .resetBegin, .resetAppend, .snapshot, .since, .status, .plugins, .select, .reload, .quarantine, .events, .locate: return false
        }
    }
}
