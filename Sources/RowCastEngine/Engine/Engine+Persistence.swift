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
    /// error topic when publications are sent); returns those reports.
    @discardableResult
    public func restore(_ restored: [RestoredFeed]) -> [Publication] {
        var publications: [Publication] = []
        for stored in restored {
            let feed = Feed(name: stored.name, epoch: stored.epoch, tally: storage)
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
                var inputs: [(ItemInput, UInt64)] = []
                inputs.reserveCapacity(chunk.count)
                for item in stored.items[chunk] {
                    do {
                        inputs.append(
                            (
                                try RequestDecoder.item(json: item.json, context: "restore of feed \"\(stored.name)\""),
                                item.arrival
                            ))
                    } catch {
                        logger.error(
                            "stored item unreadable; skipped",
                            metadata: ["feed": "\(stored.name)", "item": "\(item.id)", "error": "\(error)"])
                    }
                }
                prerenderIfBatching(inputs.map { RenderJob(kind: .renderItem, type: $0.0.type, input: $0.0.json) })
                for (input, arrival) in inputs {
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
        }
        return publications
    }
}
