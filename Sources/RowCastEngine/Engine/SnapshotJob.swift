import RowCastJSON
import RowCastWire

/// A snapshot request taken at one moment, whose replies can be written later on any thread:
/// the feed's view (shared, copy-on-write) and everything the replies say besides. The daemon
/// writes them on its snapshot thread, so that a snapshot of a million rows does not hold up
/// the loop (docs/OPERATIONS.md, "Limits").
public struct SnapshotJob: Sendable {
    /// The token of the caller, from `IncomingMessage.Origin.control`.
    public let token: Int
    let feed: String
    let view: FeedView?
    let seq: UInt64
    let epoch: String?
    let pending: Int
    let chunked: Bool
    /// The size parts aim at (about `limits.max_message_bytes`).
    let partBytes: Int
    /// `limits.max_message_bytes`, named in the refusal of a snapshot asked for whole.
    let messageLimit: Int
    let op: String
    let req: RequestID?
    let client: String?
    /// The window asked for, its start resolved to a row (`offset`, `limit`), if any.
    let window: (offset: Int, limit: Int)?
    /// Why the window cannot be answered (an `around` item without a row), if so.
    let windowError: RowCastError?

    /// The most parts one snapshot is sent in; a bigger feed gets bigger parts, so that a
    /// client's reply queue (`limits.client_reply_queue`, 1000 by default) holds them all.
    static let maximumParts = 256

    /// The request's snapshot of `feed` (nil: a feed that does not exist) as of now, the rows
    /// of `window` only when one is given.
    init(token: Int, request: Request, chunked: Bool, window: SnapshotWindow?, feed: Feed?, messageLimit: Int) {
        self.token = token
        self.feed = request.feed!
        let view = feed?.view
        self.view = view
        (self.window, windowError) = Self.resolve(window, feed: feed, view: view, name: request.feed!)
        seq = feed?.seq ?? 0
        epoch = feed?.epoch
        pending = feed?.pendingCount ?? 0
        self.chunked = chunked
        partBytes = max(messageLimit, (feed?.storedBytes ?? 0) / Self.maximumParts)
        self.messageLimit = messageLimit
        op = request.op
        req = request.req
        client = request.client
    }

    /// `window`'s first row in `feed` as it is now (an `around` item's row found on the loop
    /// thread), or why there is none.
    private static func resolve(
        _ window: SnapshotWindow?, feed: Feed?, view: FeedView?, name: String
    ) -> ((offset: Int, limit: Int)?, RowCastError?) {
        guard let window else { return (nil, nil) }
        switch window.start {
        case .offset(let offset):
            return ((offset, window.limit), nil)
        case .around(let id):
            guard let feed, let view, let place = feed.locate(id) else {
                let error = RowCastError(
                    .notFound, "snapshot: feed \"\(name)\" has no row for item \"\(id)\" to center the window on",
                    field: "around", feed: name, id: id)
                return (nil, error)
            }
            let row = view.position(section: place.section, row: place.row)
            let offset = SnapshotWindow.offset(around: row, limit: window.limit, total: view.rowCount)
            return ((offset, window.limit), nil)
        }
    }

    /// The reply bodies: one, or with `chunked` one per part, each with `part` and `parts`.
    /// A snapshot over the message limit asked for whole is refused with `limit_exceeded`.
    /// A window's replies say which rows they hold: `window` `{offset, limit, rows, total}`.
    public func replies() -> [[UInt8]] {
        if let windowError { return [ReplyBuilder.failure(windowError, op: op, req: req, client: client)] }
        let shown = window.flatMap { window in view?.window(offset: window.offset, limit: window.limit) } ?? view
        let parts = shown?.sectionParts(partBytes: partBytes) ?? [Array("[]".utf8)]
        if parts.count > 1, !chunked {
            let size = parts.reduce(0) { $0 + $1.count }
            let error = RowCastError(
                .limitExceeded,
                "snapshot: feed \"\(feed)\" takes about \(size) bytes, over the \(messageLimit) of limits.max_message_bytes; ask for it in parts with \"chunked\":true (rowcast and RowCastClient do)",
                feed: feed, limit: "limits.max_message_bytes")
            return [ReplyBuilder.failure(error, op: op, req: req, client: client)]
        }
        let (rows, total) = (shown?.rowCount ?? 0, view?.rowCount ?? 0)
        return parts.enumerated().map { index, sections in
            var writer = JSONWriter(capacity: sections.count + 256)
            writer.writeRaw("{\"ok\":true,\"op\":\"snapshot\",\"feed\":")
            writer.write(string: feed)
            writer.writeRaw(",\"seq\":")
            writer.write(integer: Int64(seq))
            writer.writeRaw(",\"epoch\":")
            if let epoch { writer.write(string: epoch) } else { writer.writeRaw("null") }
            if let window {
                writer.writeRaw(",\"window\":{\"offset\":")
                writer.write(integer: Int64(window.offset))
                writer.writeRaw(",\"limit\":")
                writer.write(integer: Int64(window.limit))
                writer.writeRaw(",\"rows\":")
                writer.write(integer: Int64(rows))
                writer.writeRaw(",\"total\":")
                writer.write(integer: Int64(total))
                writer.writeRaw("}")
            }
            if chunked {
                writer.writeRaw(",\"part\":")
                writer.write(integer: Int64(index))
                writer.writeRaw(",\"parts\":")
                writer.write(integer: Int64(parts.count))
            }
            writer.writeRaw(",\"sections\":")
            writer.writeRaw(sections)
            writer.writeRaw(",\"pending\":")
            writer.write(integer: Int64(pending))
            ReplyBuilder.appendCorrelation(&writer, req: req, client: client)
            writer.writeRaw("}")
            return writer.bytes
        }
    }
}
