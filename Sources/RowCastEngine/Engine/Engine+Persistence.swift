import RowCastJSON
import RowCastPluginHosting
import RowCastWire

extension Engine {
    /// What the batches since the last call changed, feed by feed, for the durable store to
    /// commit before the batch's replies and deltas go out.
    public func takeChanges() -> [FeedChanges] {
        feeds.keys.sorted().compactMap { feeds[$0]!.takeChanges() }
    }

    /// Rebuilds feeds from the durable store at start (or after a failed commit); seq and
    /// epoch continue where they were, and nothing is published. Returns the error events to
    /// publish once subscribers can connect.
    ///
    /// An item comes back with its stored row, and no plugin is called for it: when its type
    /// is in `staleTypes` (its renderer changed since the row was drawn), it is queued to be
    /// rendered again in the background (`staleRenders`) and served with its old row
    /// meanwhile. A quarantined item is never rendered. Only a record written before rows were
    /// stored (`PersistedItem.rendered` false) is rendered here, and listed for the next
    /// commit to store its row. Section headers are rendered again (their rows are not
    /// stored). Damaged items (those the store found, and stored items that do not parse) are
    /// quarantined, not served. `progress` is told after each feed (feeds done, feeds in all).
    @discardableResult
    public func restore(_ restored: [RestoredFeed], staleTypes: Set<String> = []) -> [Publication] {
        var unreadable: [DamagedItem] = []
        return restore(restored, unreadable: &unreadable, staleTypes: staleTypes)
    }

    /// `restore(_:staleTypes:)`, adding to `unreadable` the stored items that do not parse
    /// (the store's checksum passed, so the store does not know them to be damaged).
    public func restore(
        _ restored: [RestoredFeed], unreadable: inout [DamagedItem], staleTypes: Set<String> = [],
        progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) -> [Publication] {
        var publications: [Publication] = []
        // Whether a type has a renderer, asked once per type (an identity is built each time).
        var rendered: [String: Bool] = [:]
        func hasRenderer(_ type: String) -> Bool {
            if let known = rendered[type] { return known }
            let known = renderer.rendererIdentity(forItemType: type) != nil
            rendered[type] = known
            return known
        }
        for (index, stored) in restored.enumerated() {
            defer { progress(index + 1, restored.count) }
            for damaged in stored.damaged { quarantine.addDamaged(damaged) }
            // After a failed commit, the feed being replaced: its rows are kept for the unstored
            // items the failed batches did not change, instead of rendering them again.
            let previous = feeds[stored.name]
            let feed = Feed(name: stored.name, epoch: stored.epoch, tally: storage)
            feed.owner = stored.owner
            feed.reserveItems(stored.items.count)
            restoreSections(stored, into: feed, publications: &publications)
            var unstored: [(input: ItemInput, arrival: UInt64, row: RenderedRow?)] = []
            var stale: [String] = []
            for item in stored.items {
                let input: ItemInput
                do {
                    input = try RequestDecoder.item(json: item.json, context: "restore of feed \"\(stored.name)\"")
                } catch {
                    logger.error(
                        "stored item record does not parse; not served",
                        metadata: ["feed": "\(stored.name)", "item": "\(item.id)", "error": "\(error)"])
                    let damaged = DamagedItem(
                        feed: stored.name, id: item.id, type: item.type, reason: "does not parse: \(error.message)",
                        known: false)
                    quarantine.addDamaged(damaged)
                    unreadable.append(damaged)
                    continue
                }
                let quarantined = quarantine.contains(feed: stored.name, id: input.id)
                if item.rendered || quarantined {
                    let isStale = item.rendered && !quarantined && staleTypes.contains(input.type)
                    // The row's cell as the one shared name (a name over 15 bytes is a heap
                    // string per row otherwise).
                    var row = item.row
                    if let cell = row?.cell { row?.cell = cellNames.name(cell) }
                    feed.restoreItem(input, arrival: item.arrival, row: row, stale: isStale)
                    if isStale { stale.append(input.id) }
                    if item.row == nil, !quarantined, !isStale, !hasRenderer(input.type) {
                        _ = unknownTypeWarning(input, feed: feed, cause: nil, publications: &publications)
                    }
                } else {
                    let kept = previous?.item(input.id).flatMap { $0.input.json == input.json ? $0.row : nil }
                    unstored.append((input, item.arrival, kept))
                }
            }
            renderUnstored(unstored, into: feed, publications: &publications)
            feed.finishRestore(seq: stored.seq, nextArrival: stored.nextArrival)
            for item in unstored { feed.markUnstored(id: item.input.id) }
            staleRenders.add(feed: stored.name, ids: stale, staleTypes: staleTypes)
            installRestored(feed)
            restoreHistory(feed, deltas: stored.history)
        }
        publications += quarantineDropReports()
        return publications
    }

    /// Renders the stored sections' headers and puts the sections back.
    private func restoreSections(_ stored: RestoredFeed, into feed: Feed, publications: inout [Publication]) {
        let inputs = stored.sections.map {
            SectionInput(id: $0.id, order: $0.order, type: $0.type, header: $0.header)
        }
        prerenderIfBatching(inputs.compactMap(Self.headerJob))
        for (section, input) in zip(stored.sections, inputs) {
            var headerRow: [UInt8]?
            do {
                headerRow = try renderHeader(input, feed: stored.name)
            } catch {
                publications.append(ReplyBuilder.errorEvent(error, req: nil, client: nil))
            }
            feed.restoreSection(section, headerRow: headerRow)
        }
        finishPrerendered()
    }

    /// Renders, in chunks, the items whose record kept no row (written before rows were
    /// stored), those a failed commit's rollback kept a row for excepted, and puts them back.
    private func renderUnstored(
        _ items: [(input: ItemInput, arrival: UInt64, row: RenderedRow?)], into feed: Feed,
        publications: inout [Publication]
    ) {
        for chunk in Self.renderChunks(items.count) {
            prerenderIfBatching(
                items[chunk].filter { $0.row == nil }.map {
                    RenderJob(kind: .renderItem, type: $0.input.type, input: $0.input.json)
                })
            for (input, arrival, kept) in items[chunk] {
                if let kept {
                    feed.restoreItem(input, arrival: arrival, row: kept)
                    continue
                }
                var row: RenderedRow?
                do {
                    row = try renderItem(input, feed: feed.name)
                } catch {
                    publications.append(ReplyBuilder.errorEvent(error, req: nil, client: nil))
                }
                if row == nil, renderer.rendererIdentity(forItemType: input.type) == nil {
                    _ = unknownTypeWarning(input, feed: feed, cause: nil, publications: &publications)
                }
                feed.restoreItem(input, arrival: arrival, row: row)
            }
            finishPrerendered()
        }
    }

    /// The error events of the quarantine entries dropped for its limits since the last call
    /// (each also logged).
    func quarantineDropReports() -> [Publication] {
        quarantine.takeDropped().map { dropped in
            let error = RowCastError(
                .quarantineFull,
                "the quarantine is full (at most \(quarantine.limits.perFeed) items per feed and \(quarantine.limits.total) in all): its oldest entry, item \"\(dropped.id)\" (type \(dropped.type), \(dropped.code)), was dropped; the item stays stored without a row, and a reload may render it again",
                feed: dropped.feed, id: dropped.id)
            logger.error(
                "quarantine full; oldest entry dropped",
                metadata: [
                    "feed": "\(dropped.feed)", "id": "\(dropped.id)", "type": "\(dropped.type)",
                    "code": "\(dropped.code)",
                ])
            return ReplyBuilder.errorEvent(error, req: nil, client: nil)
        }
    }
}
