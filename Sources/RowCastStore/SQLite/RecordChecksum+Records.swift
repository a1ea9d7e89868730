import RowCastEngine

/// The checksum of each kind of stored record, over its columns in table order (the key
/// first). The writers, the loader, `--check-state` and the migration that added the
/// checksums all call these, so they cannot disagree.
extension RecordChecksum {
    /// The checksum of an item row, continuing `start` (a checksum over the feed's name).
    package static func item(
        start: RecordChecksum, id: String, type: String, section: String, sort: Double?, arrival: UInt64,
        json: [UInt8]
    ) -> RecordChecksum {
        var checksum = start
        checksum.add(id)
        checksum.add(type)
        checksum.add(section)
        checksum.add(sort)
        checksum.add(arrival)
        checksum.add(json)
        return checksum
    }

    /// The checksum of an item's stored rendering (`row_cell`, `row_json`; both nil when it has
    /// no row), in its own column (`row_crc`), continuing `start` (a checksum over the feed's
    /// name) with the item's id, so that a row moved to another item fails.
    package static func itemRow(start: RecordChecksum, id: String, cell: String?, row: [UInt8]?) -> RecordChecksum {
        var checksum = start
        checksum.add(id)
        checksum.add(cell)
        checksum.add(row != nil)
        if let row { checksum.add(row) }
        return checksum
    }

    /// The checksum of a quarantine entry.
    package static func quarantined(
        feed: String, id: String, type: String, code: String, reason: String, plugin: String, file: String, at: Int64
    ) -> RecordChecksum {
        var checksum = RecordChecksum()
        checksum.add(feed)
        checksum.add(id)
        checksum.add(type)
        checksum.add(code)
        checksum.add(reason)
        checksum.add(plugin)
        checksum.add(file)
        checksum.add(UInt64(bitPattern: at))
        return checksum
    }

    /// Where every item row of `feed` starts.
    package static func itemStart(feed: String) -> RecordChecksum {
        var checksum = RecordChecksum()
        checksum.add(feed)
        return checksum
    }

    /// The checksum of a section row (`header` as stored: JSON text or nil).
    package static func section(
        feed: String, id: String, order: Double?, type: String?, header: String?, declared: Bool, arrival: UInt64
    ) -> RecordChecksum {
        var checksum = RecordChecksum()
        checksum.add(feed)
        checksum.add(id)
        checksum.add(order)
        checksum.add(type)
        checksum.add(header)
        checksum.add(declared)
        checksum.add(arrival)
        return checksum
    }

    /// The checksum of a feed's row of counters and owner (a feed without an owner, as every
    /// feed was before owners were stored, has the checksum of its counters alone).
    package static func feed(
        name: String, seq: UInt64, epoch: String, nextArrival: UInt64, owner: String? = nil
    ) -> RecordChecksum {
        var checksum = RecordChecksum()
        checksum.add(name)
        checksum.add(seq)
        checksum.add(epoch)
        checksum.add(nextArrival)
        if let owner { checksum.add(owner) }
        return checksum
    }

    /// The checksum of a remembered answer.
    package static func request(client: String, req: String, order: UInt64, reply: [UInt8]) -> RecordChecksum {
        var checksum = RecordChecksum()
        checksum.add(client)
        checksum.add(req)
        checksum.add(order)
        checksum.add(reply)
        return checksum
    }

    /// The checksum of a kept action event.
    package static func event(feed: String, seq: UInt64, body: [UInt8]) -> RecordChecksum {
        var checksum = RecordChecksum()
        checksum.add(feed)
        checksum.add(seq)
        checksum.add(body)
        return checksum
    }

    /// The checksum of a logged delta.
    package static func delta(feed: String, seq: UInt64, epoch: String, at: Int64, body: [UInt8]) -> RecordChecksum {
        var checksum = RecordChecksum()
        checksum.add(feed)
        checksum.add(seq)
        checksum.add(epoch)
        checksum.add(UInt64(bitPattern: at))
        checksum.add(body)
        return checksum
    }
}
