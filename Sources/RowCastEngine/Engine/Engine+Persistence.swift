import RowCastJSON
import RowCastPluginHosting

extension Engine {
    /// What the batches since the last call changed, feed by feed, for the durable store to
    /// commit before the batch's replies and deltas go out.
    public func takeChanges() -> [FeedChanges] {
        feeds.keys.sorted().compactMap { feeds[$0]!.takeChanges() }
    }

    /// Rebuilds feeds from the durable store at start (or after a failed commit): every item
    /// is rendered again with the current plugins, seq and epoch continue where they were, and
    /// nothing is published. Items that no longer render wait for a plugin (reported on the
    /// error topic when publications are sent); returns those reports. Damaged items (those
    /// the store found, and stored items that do not parse) are quarantined, not served.
    @discardableResult
    public func restore(_ restored: [RestoredFeed]) -> [Publication] {
        var unreadable: [DamagedItem] = []
        return restore(restored, unreadable: &unreadable)
    }

    /// `restore(_:)`, adding to `unreadable` the stored items that do not parse (the store's
    /// checksum passed, so the store does not know them to be damaged).
    public func restore(_ restored: [RestoredFeed], unreadable: inout [DamagedItem]) -> [Publication] {
        var publications: [Publication] = []
        for stored in restored {
            for damaged in stored.damaged { quarantine.addDamaged(damaged) }
            // After a failed commit, the feed being replaced: its rows are kept for the items
            // the failed batches did not change, instead of rendering them again.
            let previous = feeds[stored.name]
            let feed = Feed(name: stored.name, epoch: stored.epoch, tally: storage)
            feed.owner = stored.owner
            feed.reserveItems(stored.items.count)
            prerenderIfBatching(
                stored.sections.compactMap {
                    Self.headerJob(SectionInput(id: $0.id, order: $0.order, type: $0.type, header: $0.header))
                })
            for section in stored.sections {
                var headerRow: [UInt8]?
                do {
                    headerRow = try renderHeader(
                        SectionInput(id: section.id, order: section.order, type: section.type, header: section.header),
                        feed: stored.name)
                } catch {
                    publications.append(ReplyBuilder.errorEvent(error, req: nil, client: nil))
                }
                feed.restoreSection(section, headerRow: headerRow)
            }
            finishPrerendered()
            for chunk in Self.renderChunks(stored.items.count) {
                var inputs: [(input: ItemInput, arrival: UInt64, row: RenderedRow?)] = []
                inputs.reserveCapacity(chunk.count)
                for item in stored.items[chunk] {
                    do {
                        let input = try RequestDecoder.item(
                            json: item.json, context: "restore of feed \"\(stored.name)\"")
                        let kept = previous?.item(input.id).flatMap { $0.input.json == input.json ? $0.row : nil }
                        inputs.append((input, item.arrival, kept))
                    } catch {
                        logger.error(
                            "stored item record does not parse; not served",
                            metadata: ["feed": "\(stored.name)", "item": "\(item.id)", "error": "\(error)"])
                        let damaged = DamagedItem(
                            feed: stored.name, id: item.id, type: item.type, reason: "does not parse: \(error.message)",
                            known: false)
                        quarantine.addDamaged(damaged)
                        unreadable.append(damaged)
                    }
                }
                prerenderIfBatching(
                    inputs.filter { $0.row == nil }.map {
                        RenderJob(kind: .renderItem, type: $0.input.type, input: $0.input.json)
                    })
                for (input, arrival, kept) in inputs {
                    if let kept {
                        feed.restoreItem(input, arrival: arrival, row: kept)
                        continue
                    }
                    var row: RenderedRow?
                    do {
                        row = try renderItem(input, feed: stored.name)
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
            feed.finishRestore(seq: stored.seq, nextArrival: stored.nextArrival)
            installRestored(feed)
            restoreHistory(feed, deltas: stored.history)
        }
        return publications
    }
}
