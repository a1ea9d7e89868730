import RowCastEngine
import RowCastPluginHosting
import RowCastWire
import RowCastKit
import RowCastTesting

/// Issue 3's diff benchmark: DifferenceKit's published workloads through `SnapshotDiff`, beside
/// Swift's `CollectionDifference` (with inferred moves) on the same data, and single-row
/// changes in large feeds through the whole engine path (decode, render, incremental delta,
/// encode).
struct DiffBenchmark {
    /// One DifferenceKit-style workload: rows, then deletes, inserts and moves.
    struct Workload {
        var rows: Int
        var deletes: Int
        var inserts: Int
        var moves: Int
        /// DifferenceKit's own benchmark: UUID strings; the deletes one contiguous range, the
        /// inserts another, and the moves a shuffle of the first rows. Otherwise ids of a few
        /// characters, each change at a random place.
        var contiguousUUIDs = false
        var name: String {
            contiguousUUIDs
                ? "\(rows.formatted) UUIDs, -\(deletes.formatted) +\(inserts.formatted) in ranges, first \(moves.formatted) shuffled"
                : "\(rows.formatted) rows, -\(deletes.formatted) +\(inserts.formatted) ~\(moves.formatted)"
        }
    }

    static let workloads = [
        Workload(rows: 5_000, deletes: 1_000, inserts: 1_000, moves: 200),
        Workload(rows: 100_000, deletes: 10_000, inserts: 10_000, moves: 2_000),
        Workload(rows: 100_000, deletes: 10_000, inserts: 10_000, moves: 2_000, contiguousUUIDs: true),
    ]

    static let feedSizes = [10_000, 100_000, 1_000_000]

    var results = JSONObject()

    mutating func run() -> String {
        var report = ""
        var diffTable = BenchTable(
            title: "Diff: DifferenceKit's workloads (one section; median of runs)",
            header: ["workload", "RowCast diff", "CollectionDifference", "ratio"])
        var diffResults: [JSONValue] = []
        for workload in Self.workloads {
            var random = SplitMix64(state: UInt64(workload.rows))
            let (source, target) = Self.makePair(workload, &random)
            let old = Self.snapshot(source)
            let new = Self.snapshot(target)
            var delta = FeedDelta()
            let ours = BenchClock.median(runs: 7) { delta = SnapshotDiff.delta(from: old, to: new) }
            precondition(!delta.isEmpty)
            guard !workload.contiguousUUIDs else {
                // CollectionDifference takes over 10 s here too: once is enough (above).
                diffTable.add([workload.name, formatDuration(ours), "-", "-"])
                diffResults.append(["workload": .string(workload.name), "rowcastSeconds": .number(ours)])
                continue
            }
            let theirsRuns = workload.rows > 10_000 ? 1 : 5
            let theirs = BenchClock.median(runs: theirsRuns) {
                let difference = target.difference(from: source).inferringMoves()
                precondition(!difference.isEmpty)
            }
            diffTable.add([
                workload.name, formatDuration(ours), formatDuration(theirs), format3(theirs / ours) + "x faster",
            ])
            diffResults.append([
                "workload": .string(workload.name), "rowcastSeconds": .number(ours),
                "collectionDifferenceSeconds": .number(theirs),
            ])
        }
        report += diffTable.render()

        var singleTable = BenchTable(
            title:
                "Single-row change through Engine.process (decode, render, incremental delta, encode; median of 201)",
            header: ["feed rows", "upsert (insert)", "delete", "move"])
        var singleResults: [JSONValue] = []
        for size in Self.feedSizes {
            let timings = Self.singleRowChanges(feedSize: size)
            singleTable.add([
                size.formatted, formatDuration(timings.insert), formatDuration(timings.delete),
                formatDuration(timings.move),
            ])
            singleResults.append([
                "rows": .number(Double(size)), "insertSeconds": .number(timings.insert),
                "deleteSeconds": .number(timings.delete), "moveSeconds": .number(timings.move),
            ])
        }
        report += singleTable.render()
        results["diff"] = .array(diffResults)
        results["singleRowChange"] = .array(singleResults)
        return report
    }

    /// Source and target id lists for a workload, made as DifferenceKit's benchmark makes them.
    static func makePair(_ workload: Workload, _ random: inout SplitMix64) -> ([String], [String]) {
        if workload.contiguousUUIDs {
            let source = (0..<workload.rows).map { _ in uuid(&random) }
            var target = source
            target.removeSubrange(workload.rows / 10..<(workload.rows / 10 + workload.deletes))
            target.insert(contentsOf: (0..<workload.inserts).map { _ in uuid(&random) }, at: target.count / 2)
            target[0..<workload.moves].shuffle(using: &random)
            return (source, target)
        }
        let source = (0..<workload.rows).map { "row-\($0)" }
        var target = source
        for _ in 0..<workload.deletes { target.remove(at: Int.random(in: 0..<target.count, using: &random)) }
        for index in 0..<workload.inserts {
            target.insert("new-\(index)", at: Int.random(in: 0...target.count, using: &random))
        }
        for _ in 0..<workload.moves {
            let element = target.remove(at: Int.random(in: 0..<target.count, using: &random))
            target.insert(element, at: Int.random(in: 0...target.count, using: &random))
        }
        return (source, target)
    }

    /// A UUID string (`UUID().uuidString`'s form: 36 characters, upper-case hex) from `random`.
    static func uuid(_ random: inout SplitMix64) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for (index, group) in [8, 4, 4, 4, 12].enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "-")) }
            for _ in 0..<group { bytes.append(hex[Int(random.next() & 15)]) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func snapshot(_ ids: [String]) -> FeedSnapshot {
        let rows = ids.map { id in FeedSnapshot.Row(id: id, cell: "Cell", bytes: Array("{\"id\":\"\(id)\"}".utf8)) }
        return FeedSnapshot(sections: [.init(id: "default", bytes: Array("{\"id\":\"default\"}".utf8), rows: rows)])
    }

    /// Median times of one upsert that inserts, one delete and one move in a feed of `feedSize`.
    static func singleRowChanges(feedSize: Int) -> (insert: Double, delete: Double, move: Double) {
        let engine = Engine(renderer: BenchRenderer())
        let items = (0..<feedSize).map { index in
            PersistedItem(
                id: "r\(index)", type: "bench", section: "default", sort: Double(index), arrival: UInt64(index),
                json: Array(
                    #"{"id":"r\#(index)","type":"bench","section":"default","sort":\#(index),"data":{"v":1}}"#.utf8))
        }
        engine.restore([
            RestoredFeed(name: "f", seq: 1, epoch: "bench", nextArrival: UInt64(feedSize), items: items, sections: [])
        ])
        var random = SplitMix64(state: UInt64(feedSize))
        func message(_ json: String) -> [IncomingMessage] { [IncomingMessage(origin: .ingest, body: Array(json.utf8))] }
        var serial = 0
        let insert = BenchClock.median(runs: 201) {
            serial += 1
            let output = engine.process(
                message(
                    #"{"op":"upsert","feed":"f","item":{"id":"new\#(serial)","type":"bench","sort":\#(Double(feedSize) / 2 + 0.5),"data":{"v":1}}}"#
                ))
            precondition(output.publications.count == 1)
        }
        var victims = Array(Set((0..<300).map { _ in Int.random(in: 0..<feedSize, using: &random) })).makeIterator()
        let delete = BenchClock.median(runs: 201) {
            let output = engine.process(message(#"{"op":"delete","feed":"f","id":"r\#(victims.next()!)"}"#))
            precondition(output.publications.count == 1)
        }
        var movers = Array(Set((0..<300).map { _ in Int.random(in: 0..<feedSize, using: &random) })).filter { _ in true
        }.makeIterator()
        let move = BenchClock.median(runs: 201) {
            let id = movers.next()!
            let output = engine.process(
                message(
                    #"{"op":"upsert","feed":"f","item":{"id":"r\#(id)","type":"bench","sort":\#(Double(feedSize) - Double(id)),"data":{"v":1}}}"#
                ))
            precondition(output.publications.count == 1)
        }
        return (insert, delete, move)
    }
}

/// A renderer as fast as a plugin can be: a fixed row per item, so the figures are the
/// engine's own cost.
final class BenchRenderer: RowRendering {
    private let row = Array(#"{"cell":"BenchCell","height":44,"content":{"title":"bench"}}"#.utf8)
    func renderItem(type: String, input: [UInt8]) -> RenderOutcome { .ok(row) }
    func renderHeader(type: String, input: [UInt8]) -> RenderOutcome { .noRenderer }
    func select(type: String, input: [UInt8]) -> RenderOutcome { .noRenderer }
    func rendererIdentity(forItemType type: String) -> String? { "bench" }
    func rendererIdentity(forHeaderType type: String) -> String? { nil }
    func pluginsDescription() -> JSONObject { [:] }
    var pluginCount: Int { 0 }
}

extension Int {
    /// 100000 as "100,000".
    var formatted: String {
        let digits = Array(String(self))
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }
}
