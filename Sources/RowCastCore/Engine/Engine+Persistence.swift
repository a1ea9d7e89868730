import RowCastKit

extension Engine {
    /// What the batches since the last call changed, feed by feed, for the durable store to
    /// commit before the batch's replies and deltas go out.
    public func takeChanges() -> [FeedChanges] {
        feeds.keys.sorted().compactMap { feeds[$0]!.takeChanges() }
    }

    /// Rebuilds feeds from the durable store at start (or after a failed commit): every item
    /// is rendered again with the current plugins, seq and epoch continue where they were, and
    /// nothing is published. Items that no longer render wait for a plugin (reported on the
    /// error topic when publications are sent); returns those reports.
    @discardableResult
    public func restore(_ restored: [RestoredFeed]) -> [Publication] {
        var publications: [Publication] = []
        for stored in restored {
            let feed = Feed(name: stored.name, epoch: stored.epoch)
            feed.reserveItems(stored.items.count)
            for section in stored.sections {
                var headerRow: [UInt8]?
                do {
                    headerRow = try renderHeader(SectionInput(id: section.id, order: section.order, type: section.type, header: section.header), feed: stored.name)
                } catch {
                    publications.append(ReplyBuilder.errorEvent(error, req: nil, client: nil))
                }
                feed.restoreSection(section, headerRow: headerRow)
            }
            for item in stored.items {
                let input: ItemInput
                do {
                    input = try RequestDecoder.item(json: item.json, context: "restore of feed \"\(stored.name)\"")
                } catch {
                    logger.error("stored item unreadable; skipped", metadata: ["feed": "\(stored.name)", "item": "\(item.id)", "error": "\(error)"])
                    continue
                }
                var row: RenderedRow?
                do {
                    row = try renderItem(input, feed: stored.name)
                } catch {
                    publications.append(ReplyBuilder.errorEvent(error, req: nil, client: nil))
                }
                if row == nil, renderer.rendererIdentity(forItemType: input.type) == nil {
                    _ = unknownTypeWarning(input, feed: feed, publications: &publications)
                }
                feed.restoreItem(input, arrival: item.arrival, row: row)
            }
            feed.finishRestore(seq: stored.seq, nextArrival: stored.nextArrival)
            installRestored(feed)
        }
        return publications
    }
}
