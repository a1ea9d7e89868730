@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import RowCastJSON
import RowCastTesting
import Testing

/// The incremental path against the full diff: random op sequences, each batch's delta must
/// pass UIKit's rules and apply exactly, whichever path computed it.
struct IncrementalDiffTests {
    static func randomBatch(_ random: inout SplitMix64, ids: Int, sections: Int = 5) -> [JSONValue] {
        var batch: [JSONValue] = []
        for _ in 0..<Int.random(in: 1...8, using: &random) {
            let id = "i\(Int.random(in: 0..<ids, using: &random))"
            let section = "s\(Int.random(in: 0..<sections, using: &random))"
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<11:
                let data: JSONObject = [
                    "name": .number(Double(Int.random(in: 0..<3, using: &random))),
                    "cell": Bool.random(using: &random) ? "A" : "B",
                ]
                let type = ["product", "ad", "truck"][Int.random(in: 0..<3, using: &random)]
                batch.append(
                    upsert(
                        "f",
                        item(
                            id, type: type, section: section, sort: Double(Int.random(in: 0..<3, using: &random)),
                            data: data)))
            case 11..<15: batch.append(["op": "delete", "feed": "f", "id": .string(id)])
            case 15..<17:
                let header: JSONObject = ["t": .number(Double(Int.random(in: 0..<2, using: &random)))]
                batch.append([
                    "op": "section", "feed": "f",
                    "section": [
                        "id": .string(section), "order": .number(Double(Int.random(in: -2..<3, using: &random))),
                        "type": "banner", "header": .object(header),
                    ],
                ])
            case 17: batch.append(["op": "delete_section", "feed": "f", "id": .string(section)])
            case 18: batch.append(upsert("f", item(id, section: section, data: ["bad": true])))
            default:
                let items = (0..<Int.random(in: 0..<10, using: &random)).map { _ in
                    item(
                        "i\(Int.random(in: 0..<ids, using: &random))",
                        section: "s\(Int.random(in: 0..<5, using: &random))",
                        sort: Double(Int.random(in: 0..<2, using: &random)))
                }
                batch.append(["op": "reset", "feed": "f", "items": .array(items)])
            }
        }
        return batch
    }

    @Test(
        "random op sequences: incremental deltas are valid and apply exactly",
        arguments: [Feed.DiffMode.incremental, .full, .automatic])
    func randomSequences(mode: Feed.DiffMode) throws {
        for seed in UInt64(1)...6 {
            let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"], headerTypes: ["banner"]))
            var random = SplitMix64(state: seed * 7919)
            _ = harness.control(upsert("f", item("seed")))
            harness.engine.feeds["f"]!.diffMode = mode
            var replica = ReferenceReplica(snapshot: harness.snapshot("f"))
            var previous = harness.engine.feeds["f"]!.snapshot
            for round in 0..<400 {
                if round % 97 == 96 {
                    // A plugin reload: "truck" items appear or go.
                    if harness.renderer.itemTypes.contains("truck") {
                        harness.renderer.itemTypes.remove("truck")
                    } else {
                        harness.renderer.itemTypes.insert("truck")
                    }
                    harness.renderer.generation += 1
                    let result = harness.decode(publications: harness.engine.replaceRenderer(harness.renderer))
                    for delta in result.deltas { try replica.apply(delta) }
                } else {
                    let result = harness.control(Self.randomBatch(&random, ids: 40))
                    #expect(result.deltas.count <= 1)
                    for delta in result.deltas { try replica.apply(delta) }
                }
                let current = harness.engine.feeds["f"]!.snapshot
                #expect(replica == ReferenceReplica(snapshot: harness.snapshot("f")), "seed \(seed) round \(round)")
                // The full diff of the same two states must also pass UIKit's rules.
                try BatchUpdateValidator.check(
                    SnapshotDiff.delta(from: previous, to: current), old: previous, new: current)
                previous = current
            }
        }
    }

    @Test("incremental deltas themselves pass UIKit's rules")
    func incrementalDeltasAreValid() throws {
        let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"], headerTypes: ["banner"]))
        var random = SplitMix64(state: 4242)
        _ = harness.control(upsert("f", item("seed")))
        let feed = harness.engine.feeds["f"]!
        feed.diffMode = .incremental
        var checked = 0
        for _ in 0..<600 {
            let old = feed.snapshot
            let result = harness.control(Self.randomBatch(&random, ids: 30))
            for published in result.deltas {
                try BatchUpdateValidator.check(Self.delta(fromJSON: published), old: old, new: feed.snapshot)
                checked += 1
            }
        }
        #expect(checked > 300)
    }

    @Test("batches that touch more sections than the diff compares by id (its table of sections) apply exactly")
    func manySectionsPerBatch() throws {
        let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"], headerTypes: ["banner"]))
        var random = SplitMix64(state: 31337)
        _ = harness.control(upsert("f", item("seed")))
        harness.engine.feeds["f"]!.diffMode = .incremental
        var replica = ReferenceReplica(snapshot: harness.snapshot("f"))
        var widest = 0
        for round in 0..<300 {
            // Three batches' worth in one, over 24 sections: many distinct sections per batch.
            var batch: [JSONValue] = []
            for _ in 0..<3 { batch += Self.randomBatch(&random, ids: 60, sections: 24) }
            let sectionsNamed = Set(batch.compactMap { $0["item"]?["section"]?.stringValue })
            widest = max(widest, sectionsNamed.count)
            let result = harness.control(batch)
            for delta in result.deltas { try replica.apply(delta) }
            #expect(replica == ReferenceReplica(snapshot: harness.snapshot("f")), "round \(round)")
        }
        #expect(widest > SectionSlots.linearLimit)
    }

    @Test("batches that change only items, in sections that stay shown, keep the sections and apply exactly")
    func itemOnlyBatchesKeepTheSections() throws {
        // Declared sections are shown with or without rows, so no batch here changes the
        // sections: the diff takes its path that leaves them as they were.
        let harness = EngineHarness(renderer: FakeRenderer(itemTypes: ["product", "ad"], headerTypes: ["banner"]))
        var random = SplitMix64(state: 2718)
        let sections: [JSONValue] = (0..<12).map { index in
            ["id": .string("s\(index)"), "order": .number(Double((index * 7) % 12)), "type": "banner"]
        }
        _ = harness.control(sections.map { ["op": "section", "feed": "f", "section": $0] })
        harness.engine.feeds["f"]!.diffMode = .incremental
        var replica = ReferenceReplica(snapshot: harness.snapshot("f"))
        var rowsMoved = 0
        for round in 0..<400 {
            var batch: [JSONValue] = []
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let id = "i\(Int.random(in: 0..<50, using: &random))"
                if Int.random(in: 0..<5, using: &random) == 0 {
                    batch.append(["op": "delete", "feed": "f", "id": .string(id)])
                    continue
                }
                let data: JSONObject = [
                    "name": .number(Double(Int.random(in: 0..<3, using: &random))),
                    "cell": Bool.random(using: &random) ? "A" : "B",
                ]
                batch.append(
                    upsert(
                        "f",
                        item(
                            id, type: Bool.random(using: &random) ? "product" : "ad",
                            section: "s\(Int.random(in: 0..<12, using: &random))",
                            sort: Double(Int.random(in: 0..<4, using: &random)), data: data)))
            }
            let old = harness.engine.feeds["f"]!.snapshot
            let result = harness.control(batch)
            for published in result.deltas {
                for kind in ["deleted", "inserted", "moved", "updated"] { #expect(published["sections"]?[kind] == []) }
                rowsMoved += published["rows"]?["moved"]?.arrayValue?.count ?? 0
                try BatchUpdateValidator.check(
                    Self.delta(fromJSON: published), old: old, new: harness.engine.feeds["f"]!.snapshot)
                try replica.apply(published)
            }
            #expect(replica == ReferenceReplica(snapshot: harness.snapshot("f")), "round \(round)")
        }
        #expect(harness.engine.feeds["f"]!.sectionCount == 12)
        #expect(rowsMoved > 50)
    }

    /// The index paths of a published delta (row and section bytes are not needed to validate).
    static func delta(fromJSON json: JSONValue) -> FeedDelta {
        func path(_ value: JSONValue?) -> IndexPath {
            let pair = value!.arrayValue!
            return IndexPath(section: Int(pair[0].numberValue!), row: Int(pair[1].numberValue!))
        }
        func int(_ value: JSONValue?) -> Int { Int(value!.numberValue!) }
        func list(_ group: String, _ kind: String) -> [JSONValue] { json[group]![kind]!.arrayValue! }
        var delta = FeedDelta()
        delta.deletedSections = list("sections", "deleted").map { .init(id: $0["id"]!.stringValue!, at: int($0["at"])) }
        delta.insertedSections = list("sections", "inserted").map {
            .init(id: $0["id"]!.stringValue!, at: int($0["at"]), section: [], rows: [])
        }
        delta.movedSections = list("sections", "moved").map {
            .init(id: $0["id"]!.stringValue!, from: int($0["from"]), to: int($0["to"]))
        }
        delta.updatedSections = list("sections", "updated").map {
            .init(id: $0["id"]!.stringValue!, at: int($0["at"]), section: [])
        }
        delta.deletedRows = list("rows", "deleted").map { .init(id: $0["id"]!.stringValue!, at: path($0["at"])) }
        delta.insertedRows = list("rows", "inserted").map {
            .init(id: $0["id"]!.stringValue!, at: path($0["at"]), row: [])
        }
        delta.movedRows = list("rows", "moved").map {
            .init(id: $0["id"]!.stringValue!, from: path($0["from"]), to: path($0["to"]))
        }
        delta.reconfiguredRows = list("rows", "reconfigured").map {
            .init(id: $0["id"]!.stringValue!, at: path($0["at"]), row: [])
        }
        delta.reloadedRows = list("rows", "reloaded").map {
            .init(id: $0["id"]!.stringValue!, at: path($0["at"]), row: [])
        }
        return delta
    }

    @Test("a single upsert into a large feed sends one row, computed incrementally")
    func singleUpsertInLargeFeed() throws {
        let harness = EngineHarness()
        let items: [JSONValue] = (0..<10_000).map { item("r\($0)", sort: Double($0)) }
        let reset = harness.control(["op": "reset", "feed": "big", "items": .array(items)])
        #expect(reset.replies.first?["ok"] == true)
        let result = harness.control(upsert("big", item("new", sort: 5_000.5)))
        let delta = try #require(result.deltas.first)
        #expect(
            delta["rows"]?["inserted"] == [
                [
                    "id": "new", "at": [0, 5_001],
                    "row": [
                        "id": "new", "type": "product", "cell": "productCell", "height": 44, "content": ["name": "x"],
                        "actions": [],
                    ],
                ]
            ])
        #expect(delta["rows"]?["moved"] == [])
        let moved = harness.control(upsert("big", item("r5", sort: -1)))
        #expect(moved.deltas.first?["rows"]?["moved"] == [["id": "r5", "from": [0, 5], "to": [0, 0]]])
    }
}

extension Feed.DiffMode: CustomTestStringConvertible {
    /// The mode's name, in test output.
    public var testDescription: String { "\(self)" }
}
