import RowCastJSON
import RowCastWire

/// Dropping a feed (`drop`): it goes with its items, sections, history and quarantined items,
/// and frees its place under `limits.max_feeds`. Its subscribers get a last delta that empties
/// it; a feed created later under the name starts a new epoch.
extension Engine {
    /// Empties `name`, publishes that delta, and removes the feed; returns the reply's
    /// `dropped` member (what the feed held, and its last seq and epoch).
    func drop(feed name: String, publications: inout [Publication]) throws(RowCastError) -> JSONObject {
        guard let feed = feeds[name] else {
            throw RowCastError(.notFound, "drop: feed \"\(name)\" does not exist", field: "feed", feed: name)
        }
        let items = feed.itemCount
        let sections = feed.storedSectionCount
        feed.reset(sections: [], items: [])
        droppedPositions += publishDeltas(for: [name], into: &publications)
        // The emptying delta is for subscribers only: the feed's log goes with it.
        unloggedHistory.removeAll { $0.feed == name }
        quarantine.removeAll(feed: name)
        var dropped = JSONObject()
        dropped.append(key: "items", value: .number(Double(items)))
        dropped.append(key: "sections", value: .number(Double(sections)))
        dropped.append(key: "seq", value: .number(Double(feed.seq)))
        dropped.append(key: "epoch", value: .string(feed.epoch))
        discardFeed(named: name)
        if logsHistory { unstoredDrops.append(name) }
        logger.notice(
            "feed dropped", metadata: ["feed": "\(name)", "items": "\(items)", "seq": "\(feed.seq)"])
        // The feed does not exist any more (a feed created again later in the batch is another).
        return ["seq": .number(0), "epoch": .null, "dropped": .object(dropped)]
    }

    /// The feeds dropped since the last call, for the store to delete; forgets them.
    public func takeDrops() -> [String] {
        defer { unstoredDrops.removeAll() }
        return unstoredDrops
    }
}
