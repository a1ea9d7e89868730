import Foundation
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import RowCastTesting
import Testing

/// A store in memory that applies `FeedChanges` the way the durable store must.
final class MemoryStore {
    var feeds:
        [String: (
            seq: UInt64, epoch: String, nextArrival: UInt64, items: [String: PersistedItem],
            sections: [String: PersistedSection]
        )] = [:]

    func commit(_ changes: [FeedChanges]) {
        for change in changes {
            var feed = feeds[change.feed] ?? (0, change.epoch, 0, [:], [:])
            if change.replacedAll {
                feed.items = [:]
                feed.sections = [:]
            }
            for (id, item) in change.items { feed.items[id] = item }
            for (id, section) in change.sections { feed.sections[id] = section }
            feed.seq = change.seq
            feed.epoch = change.epoch
            feed.nextArrival = change.nextArrival
            feeds[change.feed] = feed
        }
    }

    var restored: [RestoredFeed] {
        feeds.map { name, feed in
            RestoredFeed(
                name: name, seq: feed.seq, epoch: feed.epoch, nextArrival: feed.nextArrival,
                items: Array(feed.items.values), sections: Array(feed.sections.values))
        }
    }
}

struct EnginePersistenceTests {
    @Test("changes committed batch by batch restore the exact snapshot, seq and epoch")
    func restoreRoundTrip() throws {
        let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"], headerTypes: ["banner"]))
        let store = MemoryStore()
        var random = SplitMix64(state: 7)
        for _ in 0..<200 {
            var batch: [JSONValue] = []
            for _ in 0..<Int.random(in: 1...5, using: &random) {
                let id = "i\(Int.random(in: 0..<30, using: &random))"
                let section = "s\(Int.random(in: 0..<4, using: &random))"
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<6:
                    batch.append(
                        upsert(
                            "f",
                            item(
                                id, type: Bool.random(using: &random) ? "product" : "ad", section: section,
                                sort: Double(Int.random(in: 0..<3, using: &random)))))
                case 6: batch.append(["op": "delete", "feed": "f", "id": .string(id)])
                case 7:
                    batch.append([
                        "op": "section", "feed": "f",
                        "section": [
                            "id": .string(section), "order": .number(Double(Int.random(in: -2..<3, using: &random))),
                            "type": "banner", "header": ["t": "x"],
                        ],
                    ])
                case 8: batch.append(["op": "delete_section", "feed": "f", "id": .string(section)])
                default:
                    batch.append([
                        "op": "reset", "feed": "f",
                        "items": .array(
                            (0..<Int.random(in: 0..<6, using: &random)).map { _ in
                                item(
                                    "i\(Int.random(in: 0..<30, using: &random))",
                                    section: "s\(Int.random(in: 0..<4, using: &random))")
                            }),
                    ])
                }
            }
            _ = harness.control(batch)
            store.commit(harness.engine.takeChanges())
        }
        #expect(harness.engine.takeChanges().isEmpty)
        let restarted = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"], headerTypes: ["banner"]))
        restarted.engine.restore(store.restored)
        #expect(restarted.snapshot("f") == harness.snapshot("f"))
        // New items after a restart still order after the restored ones.
        _ = harness.control(upsert("f", item("new", section: "s0")))
        _ = restarted.control(upsert("f", item("new", section: "s0")))
        #expect(restarted.snapshot("f") == harness.snapshot("f"))
    }

    @Test(
        "changes taken every few batches list each id once, in id order, as it is last, and restore the exact snapshot")
    func changesOverSeveralBatches() throws {
        let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"]))
        let store = MemoryStore()
        var random = SplitMix64(state: 11)
        for _ in 0..<120 {
            // Few ids, several batches per take: the same id is upserted, deleted and inserted
            // again between two takes, in one batch or across them.
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                var batch: [JSONValue] = []
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    let id = "i\(Int.random(in: 0..<8, using: &random))"
                    let section = "s\(Int.random(in: 0..<3, using: &random))"
                    switch Int.random(in: 0..<20, using: &random) {
                    case 0..<11:
                        batch.append(
                            upsert("f", item(id, section: section, sort: Double(Int.random(in: 0..<4, using: &random))))
                        )
                    case 11..<18: batch.append(["op": "delete", "feed": "f", "id": .string(id)])
                    case 18: batch.append(["op": "delete_section", "feed": "f", "id": .string(section)])
                    default: batch.append(["op": "reset", "feed": "f", "items": .array([item(id, section: section)])])
                    }
                }
                _ = harness.control(batch)
            }
            let changes = harness.engine.takeChanges()
            for change in changes {
                let ids = change.items.map(\.id)
                #expect(ids == Array(Set(ids)).sorted(), "each id once, in order: \(ids)")
            }
            store.commit(changes)
            let restarted = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"]))
            restarted.engine.restore(store.restored)
            #expect(restarted.snapshot("f") == harness.snapshot("f"))
        }
    }

    @Test(
        "items of a type no plugin handles any more keep their stored rows at start, then wait once rendered again, reported once"
    )
    func restoreWithoutPlugin() {
        let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"]))
        let store = MemoryStore()
        _ = harness.control([
            upsert("f", item("1", type: "ad")), upsert("f", item("2", type: "ad")), upsert("f", item("3")),
        ])
        store.commit(harness.engine.takeChanges())
        let restarted = EngineHarness(renderer: FakeRenderer(itemTypes: ["product"]))
        let reports = restarted.decode(publications: restarted.engine.restore(store.restored, staleTypes: ["ad"]))
        #expect(reports.errors.isEmpty)
        #expect(restarted.renderer.renderCalls == 0)
        #expect(restarted.snapshot("f") == harness.snapshot("f"))
        #expect(restarted.engine.staleRenders.count == 2)
        let output = restarted.engine.renderStaleChunk()
        let rendered = restarted.decode(publications: output.publications)
        #expect(rendered.errors.map { $0["code"] } == ["unknown_type"])
        #expect(!restarted.engine.hasStaleRenders)
        #expect(restarted.engine.takeRefreshedTypes() == ["ad"])
        #expect(restarted.snapshot("f")["pending"] == 2)
        #expect(restarted.snapshot("f")["seq"] == 2)
    }

    @Test(
        "stale rows whose plugin is paused keep their rows and wait in the queue, then render once the pause is over"
    )
    func staleRowsWaitOutAPause() {
        let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product"]))
        let store = MemoryStore()
        _ = harness.control([upsert("f", item("1")), upsert("f", item("2"))])
        store.commit(harness.engine.takeChanges())
        let renderer = FakeRenderer(itemTypes: ["product"], generation: 2)
        let restarted = EngineHarness(renderer: renderer)
        restarted.engine.restore(store.restored, staleTypes: ["product"])
        renderer.paused = true
        let paused = restarted.decode(publications: restarted.engine.renderStaleChunk().publications)
        #expect(paused.publications.isEmpty, "no delta and no error event for each item of a paused plugin")
        #expect(restarted.snapshot("f") == harness.snapshot("f"), "both keep their rows")
        #expect(restarted.engine.staleRenders.count == 2)
        #expect(!restarted.engine.hasStaleRenders, "the queue waits instead of spinning through the pause")
        #expect(restarted.engine.takeRefreshedTypes().isEmpty)
        renderer.paused = false
        Thread.sleep(forTimeInterval: 1.05)
        #expect(restarted.engine.hasStaleRenders)
        _ = restarted.engine.renderStaleChunk()
        #expect(renderer.renderCalls == 2)
        #expect(!restarted.engine.hasStaleRenders)
        #expect(restarted.engine.takeRefreshedTypes() == ["product"])
    }
}
