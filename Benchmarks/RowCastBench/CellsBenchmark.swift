import Foundation
import RowCastJSON

/// Issue 15's declarative cells against the Swift plugins, for the same car rows: the
/// end-to-end workload of `throughput`, once with librowcast-product.so and
/// librowcast-advertising.so (in their default plugin hosts), once with no plugin and
/// Tests/Fixtures/cells/cars.yaml instead (rows byte for byte the same, see
/// CarCellsEquivalenceTests), rounds alternating. CPU per item counts the plugin hosts.
struct CellsBenchmark {
    /// Items per run (`ROWCAST_BENCH_CELLS_ITEMS`, default 100,000).
    var items = Int(ProcessInfo.processInfo.environment["ROWCAST_BENCH_CELLS_ITEMS"] ?? "") ?? 100_000
    /// Rounds per renderer (`ROWCAST_BENCH_CELLS_ROUNDS`, default 3).
    var rounds = max(1, Int(ProcessInfo.processInfo.environment["ROWCAST_BENCH_CELLS_ROUNDS"] ?? "") ?? 3)
    var results = JSONObject()

    /// The cell file, found from this source file's place in the repository.
    static let cellFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures/cells/cars.yaml").path

    mutating func run() throws -> String {
        guard FileManager.default.fileExists(atPath: Self.cellFile) else {
            throw BenchFailure("cells: \(Self.cellFile) not found (run from a checkout)")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rowcast-bench-cells-\(UUID().uuidString)")
        let noPlugins = scratch.appendingPathComponent("plugins").path,
            cells = scratch.appendingPathComponent("cells").path
        try FileManager.default.createDirectory(atPath: noPlugins, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: cells, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.copyItem(atPath: Self.cellFile, toPath: cells + "/cars.yaml")

        let renderers = ["Swift plugins", "declarative cells"]
        var rates: [String: [Double]] = [:], cpu: [String: [Double]] = [:], loop: [String: [Double]] = [:]
        for round in 1...rounds {
            for renderer in round % 2 == 1 ? renderers : renderers.reversed() {
                let declarative = renderer == "declarative cells"
                let run = try ThroughputBenchmark.endToEnd(
                    items: items, run: "cells\(round)\(declarative ? "d" : "p")",
                    pluginDirectory: declarative ? noPlugins : nil,
                    extraArguments: declarative ? ["--cells", cells] : [])
                rates[renderer, default: []].append(Double(items) / run.seconds)
                cpu[renderer, default: []].append((run.daemonCPUSeconds + run.hostCPUSeconds) / Double(items))
                loop[renderer, default: []].append(run.busiestThreadCPUSeconds / Double(items))
            }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        var table = BenchTable(
            title:
                "Declarative cells vs Swift plugins: \(items.formatted) car items end to end, the same rows (best rate, median CPU of \(rounds) rounds, alternating)",
            header: ["renderer", "items/s", "CPU/item, all processes", "loop thread CPU/item"])
        for renderer in renderers {
            table.add([
                renderer, Int(rates[renderer]!.max()!).formatted, format3(median(cpu[renderer]!) * 1e6) + " µs",
                format3(median(loop[renderer]!) * 1e6) + " µs",
            ])
            results[renderer == "declarative cells" ? "cells" : "plugins"] = [
                "itemsPerSecond": .array(rates[renderer]!.map(JSONValue.number)),
                "cpuSecondsPerItem": .array(cpu[renderer]!.map(JSONValue.number)),
                "loopCPUSecondsPerItem": .array(loop[renderer]!.map(JSONValue.number)),
            ]
        }
        let cpuRatio = median(cpu["declarative cells"]!) / median(cpu["Swift plugins"]!)
        table.add([
            "cells / plugins", format3(rates["declarative cells"]!.max()! / rates["Swift plugins"]!.max()!),
            format3(cpuRatio), "",
        ])
        table.footnotes.append(
            "plugins in their default isolation (process); cells render in rowcastd itself; target: cells not slower than the plugins"
        )
        results["cpuRatio"] = .number(cpuRatio)
        return table.render()
    }
}
