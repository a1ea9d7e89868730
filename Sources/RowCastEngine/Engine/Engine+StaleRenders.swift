import RowCastPluginHosting

extension Engine {
    /// The most stale items rendered in one call of `renderStaleChunk` (of one feed or of
    /// several): one call to the renderer and one commit, a few milliseconds for a plugin of
    /// usual speed, so a loop pass that renders a chunk still serves the other feeds right
    /// after.
    public static let staleChunkSize = 128

    /// Whether items restored with stale rows wait to be rendered again (`renderStaleChunk`)
    /// now: not while their plugin is paused.
    public var hasStaleRenders: Bool {
        !staleRenders.isEmpty && staleRendersWaitUntil.map { ContinuousClock.now >= $0 } ?? true
    }

    /// How long stale rows wait after a chunk found their plugin paused.
    static let staleRetryAfterPause = Duration.seconds(1)

    /// Renders again the next chunk (at most `limit` items, feed by feed) of the items a start
    /// restored with rows drawn by a renderer that changed since, and publishes a delta for
    /// each feed whose rows changed. Items replaced, deleted or rendered since (by a reload)
    /// are skipped; so are quarantined ones. An item its plugin crashed or hung on is
    /// quarantined (and loses its row); one whose plugin is paused keeps its row and is queued
    /// again (the queue then waits `staleRetryAfterPause`); one its plugin refuses, or whose type no plugin handles
    /// any more (reported once, `unknown_type`), keeps no row. Returns the publications and
    /// positions to send once the changes are committed.
    public func renderStaleChunk(limit: Int = staleChunkSize) -> EngineOutput {
        var output = EngineOutput()
        var items: [(feed: Feed, item: StoredItem)] = []
        for chunk in staleRenders.take(upTo: limit) {
            guard let feed = feeds[chunk.feed] else { continue }
            for id in chunk.ids {
                guard let item = feed.item(id), item.staleRow, !quarantine.contains(feed: feed.name, id: id) else {
                    continue
                }
                items.append((feed, item))
            }
        }
        prerenderIfBatching(
            items.map { RenderJob(kind: .renderItem, type: $0.item.input.type, input: $0.item.input.json) })
        var batch = BatchState()
        staleRendersWaitUntil = nil
        var renderedAny = false
        var pausedAny = false
        defer {
            // Only a chunk that rendered nothing waits: healthy plugins' items go on at once.
            if pausedAny && !renderedAny { staleRendersWaitUntil = .now + Self.staleRetryAfterPause }
        }
        for (feed, item) in items {
            var row: RenderedRow?
            do {
                row = try renderItem(item.input, feed: feed.name)
            } catch  where error.code == .pluginUnavailable {
                // Its plugin is paused: the item keeps its row and goes back in the queue, and
                // the queue waits a while instead of spinning through the pause.
                staleRenders.add(feed: feed.name, ids: [item.input.id], staleTypes: [])
                pausedAny = true
                continue
            } catch {
                counters.countRejection(error.code)
                output.publications.append(ReplyBuilder.errorEvent(error, req: nil, client: nil))
            }
            renderedAny = true
            // Even an unchanged row is set: it clears the mark, and the next commit stores it.
            feed.setRow(row, forItem: item.input.id)
            if row != nil {
                feed.reportedUnknownTypes.remove(item.input.type)
            } else if renderer.rendererIdentity(forItemType: item.input.type) == nil {
                _ = unknownTypeWarning(item.input, feed: feed, cause: nil, publications: &output.publications)
            }
            batch.touch(feed.name)
        }
        finishPrerendered()
        output.positions = publishDeltas(for: batch.dirtyFeeds, into: &output.publications)
        return output
    }

    /// Once every stale item is rendered again: the item types whose stored rows are all drawn
    /// by the current renderer now (the durable store records it), and forgets them.
    public func takeRefreshedTypes() -> Set<String> {
        staleRenders.takeRefreshedTypes()
    }
}
