import Foundation
import GRDB
import Logging
import RowCastEngine

extension SQLiteFeedStore {
    /// Reads the delta log into each feed's `history`: newest first, the deltas of the feed's
    /// current epoch that lead without a gap down from its seq, logged within
    /// `limits.maximumAge`, at most `limits.deltas` per feed and `limits.bytes` over every
    /// feed. A delta that fails its checksum ends its feed's history there (a `since` from
    /// before it takes a snapshot).
    static func readHistory(
        _ db: Database, into feeds: inout [String: RestoredFeed], limits: HistoryLimits, filter: String,
        arguments: StatementArguments, logger: Logger
    ) throws {
        guard limits.deltas > 0 else { return }
        let oldest = DeltaLogClock.before(limits.maximumAge)
        var bytes = 0
        var ended: Set<String> = []
        let rows = try Row.fetchCursor(
            db, sql: "SELECT feed, seq, epoch, at, body, crc FROM deltas\(filter) ORDER BY feed, seq DESC",
            arguments: arguments)
        while let row = try rows.next() {
            guard let feed = row.storedText(0), let restored = feeds[feed], !ended.contains(feed) else { continue }
            guard let seq = row.storedCount(1), let epoch = row.storedText(2), let at = row.storedInteger(3),
                let body = row.storedBytes(4)
            else {
                ended.insert(feed)
                continue
            }
            let read = RecordChecksum.delta(feed: feed, seq: seq, epoch: epoch, at: at, body: body)
            if let reason = checksumFailure(stored: row.storedInteger(5), read: read) {
                logger.warning(
                    "logged delta damaged; since requests from before it take a snapshot",
                    metadata: ["feed": "\(feed)", "seq": "\(seq)", "reason": "\(reason)"])
                ended.insert(feed)
                continue
            }
            if seq > restored.seq { continue }
            // Newest first while reading; put in order below.
            let expected = restored.history.last.map { $0.seq - 1 } ?? restored.seq
            guard seq == expected, epoch == restored.epoch, at >= oldest, restored.history.count < limits.deltas,
                bytes + body.count <= limits.bytes
            else {
                ended.insert(feed)
                continue
            }
            bytes += body.count
            feeds[feed]!.history.append((seq, body))
        }
        for name in feeds.keys where !feeds[name]!.history.isEmpty { feeds[name]!.history.reverse() }
    }
}
