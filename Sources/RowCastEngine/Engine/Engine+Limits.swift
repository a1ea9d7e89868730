import RowCastJSON
import RowCastWire

/// The `limits.max_*` checks: each runs before the request changes anything, so a refused
/// request costs nothing but its `limit_exceeded` answer.
extension Engine {
    /// Refuses to create the feed `name` when `limits.max_feeds` feeds exist already.
    func checkFeedLimit(creating name: String, op: String) throws(RowCastError) {
        // Far from the limit and without a client to count, as almost always, no lookup.
        let counted = currentPrincipal != nil && accessCheck != nil
        guard feeds.count >= limits.feeds || counted, feeds[name] == nil else { return }
        if counted, let principal = currentPrincipal, let quota = accessCheck?.feedQuota(of: principal),
            !takesPlace(for: principal, feed: name, quota: quota)
        {
            throw RowCastError(
                .limitExceeded,
                "\(op): client \"\(principal)\" has created \(ownedFeedCount(of: principal)) feeds, the most its key file's max_feeds allows; feed \"\(name)\" was not created. Drop one of its feeds (rowcast drop), or raise max_feeds in its key file",
                feed: name, limit: "max_feeds of client \(principal)")
        }
        guard feeds.count >= limits.feeds else { return }
        throw RowCastError(
            .limitExceeded,
            "\(op): rowcastd holds \(feeds.count) feeds, the most limits.max_feeds allows; feed \"\(name)\" was not created. Raise the limit, or publish into an existing feed",
            feed: name, limit: "limits.max_feeds")
    }

    /// Whether `principal` may create the feed `name` under `quota`. With several loops the
    /// place is taken in the shared counts at once (`reservedPlace`), so that no other loop
    /// takes it before this request creates the feed.
    private func takesPlace(for principal: String, feed name: String, quota: Int) -> Bool {
        guard let sharedOwners else { return ownedFeeds[principal, default: 0] < quota }
        if let reserved = reservedPlace, reserved.owner == principal, reserved.feed == name { return true }
        releaseReservedPlace()
        guard sharedOwners.reserve(for: principal, quota: quota) else { return false }
        reservedPlace = (principal, name)
        return true
    }

    /// Refuses an upsert that would add an item past `limits.max_items_per_feed`, a section
    /// past `limits.max_sections_per_feed`, or bytes past `limits.max_stored_bytes`.
    ///
    /// The item is looked up only when a limit is near (the feed is full, or the new bytes
    /// alone would pass the byte limit): far from every limit, as almost always, the checks
    /// cost no lookup of the item. Returns the feed when it exists already, so that the upsert
    /// does not look it up by name again.
    @discardableResult
    func checkUpsertLimits(
        _ item: ItemInput, row: RenderedRow?, feed name: String, op: String
    ) throws(RowCastError) -> Feed? {
        try checkFeedLimit(creating: name, op: op)
        let added = Feed.bytes(of: item, row: row)
        let feed = feeds[name]
        let full = feed.map { $0.itemCount >= limits.itemsPerFeed } ?? false
        let overBytes = storage.bytes + added > limits.storedBytes
        let existing = full || overBytes ? feed?.item(item.id) : nil
        if let feed, full, existing == nil {
            throw RowCastError(
                .limitExceeded,
                "\(op): feed \"\(name)\" holds \(feed.itemCount) items, the most limits.max_items_per_feed allows; item \"\(item.id)\" was not stored. Delete items first, or raise the limit",
                feed: name, id: item.id, limit: "limits.max_items_per_feed")
        }
        if let feed { try checkSectionLimit(adding: item.section, to: feed, op: op) }
        guard overBytes else { return feed }
        let before = existing.map { Feed.bytes(of: $0.input, row: $0.row) } ?? 0
        try checkStoredBytes(adding: added - before, feed: name, id: item.id, op: op)
        return feed
    }

    /// Refuses a new section id past `limits.max_sections_per_feed`.
    func checkSectionLimit(adding id: String, to feed: Feed, op: String) throws(RowCastError) {
        guard feed.storedSectionCount >= limits.sectionsPerFeed, !feed.hasSection(id) else { return }
        throw RowCastError(
            .limitExceeded,
            "\(op): feed \"\(feed.name)\" holds \(feed.storedSectionCount) sections, the most limits.max_sections_per_feed allows; section \"\(id)\" was not created. Delete sections first, or raise the limit",
            feed: feed.name, id: id, limit: "limits.max_sections_per_feed")
    }

    /// Refuses a reset whose items or sections are more than one feed may hold; checked
    /// before anything is rendered.
    func checkResetCounts(
        items: [ItemInput], sections: [SectionInput], feed name: String, op: String
    ) throws(RowCastError) {
        try checkFeedLimit(creating: name, op: op)
        if items.count > limits.itemsPerFeed {
            throw RowCastError(
                .limitExceeded,
                "\(op): \(items.count) items, more than the \(limits.itemsPerFeed) limits.max_items_per_feed allows in one feed; nothing was replaced. Split the feed, or raise the limit",
                feed: name, limit: "limits.max_items_per_feed")
        }
        var sectionIDs = Set(sections.map(\.id))
        if sectionIDs.count <= limits.sectionsPerFeed {
            for item in items {
                sectionIDs.insert(item.section)
                if sectionIDs.count > limits.sectionsPerFeed { break }
            }
        }
        if sectionIDs.count > limits.sectionsPerFeed {
            throw RowCastError(
                .limitExceeded,
                "\(op): more than the \(limits.sectionsPerFeed) sections limits.max_sections_per_feed allows in one feed; nothing was replaced. Use fewer sections, or raise the limit",
                feed: name, limit: "limits.max_sections_per_feed")
        }
    }

    /// Refuses a change that would take the bytes held over every feed past
    /// `limits.max_stored_bytes`; a change that frees bytes always passes.
    func checkStoredBytes(adding change: Int, feed name: String, id: String?, op: String) throws(RowCastError) {
        guard change > 0, storage.bytes + change > limits.storedBytes else { return }
        throw RowCastError(
            .limitExceeded,
            "\(op): rowcastd holds \(storage.bytes) bytes of items and rows; \(change) more would pass the \(limits.storedBytes) limits.max_stored_bytes allows, so nothing was stored. Delete items first, or raise the limit",
            feed: name, id: id, limit: "limits.max_stored_bytes")
    }
}
