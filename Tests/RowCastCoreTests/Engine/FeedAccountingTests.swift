@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import RowCastJSON
import RowCastTesting
import Testing

/// The counts a feed keeps as it changes (`storedBytes`, `pendingCount`) and the engine's
/// total must always equal a recount of the items, through every kind of change.
struct FeedAccountingTests {
    @Test("random op sequences and plugin reloads: stored bytes and pending counts equal a recount")
    func countsMatchRecount() {
        for seed in UInt64(1)...4 {
            let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"], headerTypes: ["banner"]))
            var random = SplitMix64(state: seed * 104_729)
            for round in 0..<300 {
                if round % 53 == 52 {
                    if harness.renderer.itemTypes.contains("truck") {
                        harness.renderer.itemTypes.remove("truck")
                    } else {
                        harness.renderer.itemTypes.insert("truck")
                    }
                    harness.renderer.generation += 1
                    _ = harness.engine.replaceRenderer(harness.renderer)
                } else {
                    _ = harness.control(IncrementalDiffTests.randomBatch(&random, ids: 30))
                }
                var total = 0
                for feed in harness.engine.feeds.values {
                    let bytes = feed.allItems.reduce(0) { $0 + $1.input.json.count + ($1.row?.bytes.count ?? 0) }
                    let pending = feed.allItems.reduce(0) { $0 + ($1.row == nil ? 1 : 0) }
                    #expect(feed.storedBytes == bytes, "seed \(seed) round \(round)")
                    #expect(feed.pendingCount == pending, "seed \(seed) round \(round)")
                    total += bytes
                }
                #expect(harness.engine.storedBytes == total, "seed \(seed) round \(round)")
            }
        }
    }
}
