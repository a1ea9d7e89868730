import Foundation
import RowCastJSON

/// Issue 11's cost of plugin hosts: the end-to-end throughput and the latency workloads, run
/// with `--plugin-isolation in_process` and `process` in the same run, alternating modes
/// round by round so the machine's slow stretches fall on both; CPU per item counts the
/// plugin hosts too.
struct IsolationBenchmark {
    /// Items per throughput run (`ROWCAST_BENCH_ISOLATION_ITEMS`, default 200,000).
    var items = Int(ProcessInfo.processInfo.environment["ROWCAST_BENCH_ISOLATION_ITEMS"] ?? "") ?? 200_000
    /// Rounds of each workload per mode (`ROWCAST_BENCH_ISOLATION_ROUNDS`, default 3).
    var rounds = max(1, Int(ProcessInfo.processInfo.environment["ROWCAST_BENCH_ISOLATION_ROUNDS"] ?? "") ?? 3)
    var latencySeconds = 5
    var results = JSONObject()

    /// What one mode measured.
    private struct Figures {
        var rates: [Double] = []
        var cpuPerItem: [Double] = []
        var hostCPUPerItem: [Double] = []
        var p99s: [Double] = []

        var bestRate: Double { rates.max() ?? 0 }
        var medianCPU: Double { cpuPerItem.sorted()[cpuPerItem.count / 2] }
        var medianHostCPU: Double { hostCPUPerItem.sorted()[hostCPUPerItem.count / 2] }
        var p99Milliseconds: Double { p99s.sorted()[p99s.count / 2] }
    }

    mutating func run() throws -> String {
        let modes = ["in_process", "process"]
        var figures: [String: Figures] = [:]
        for round in 1...rounds {
            for mode in round % 2 == 1 ? modes : modes.reversed() {
                let run = try ThroughputBenchmark.endToEnd(
                    items: items, run: "iso\(round)\(mode)", extraArguments: ["--plugin-isolation", mode])
                figures[mode, default: Figures()].rates.append(Double(items) / run.seconds)
                figures[mode, default: Figures()].cpuPerItem.append(
                    (run.daemonCPUSeconds + run.hostCPUSeconds) / Double(items))
                figures[mode, default: Figures()].hostCPUPerItem.append(run.hostCPUSeconds / Double(items))
            }
        }
        // p99 over one 5 s run swings with the machine's hiccups: the median of `rounds` runs
        // per mode, alternating, like the throughput rounds.
        for round in 1...rounds {
            for mode in round % 2 == 1 ? modes : modes.reversed() {
                var latency = LatencyBenchmark()
                latency.seconds = latencySeconds
                latency.measuresFloor = false
                latency.daemonArguments = ["--plugin-isolation", mode]
                latency.rates = [10_000]
                _ = try latency.run()
                figures[mode, default: Figures()].p99s.append(latency.first["p99Milliseconds"]?.numberValue ?? 0)
            }
        }
        var table = BenchTable(
            title:
                "Plugin isolation: \(items.formatted) car items end to end (best of \(rounds), modes alternating) and p99 at 10,000 items/s (median of \(rounds))",
            header: ["plugin_isolation", "items/s", "CPU/item, all processes", "of which hosts", "p99"])
        for mode in modes {
            let figure = figures[mode]!
            table.add([
                mode, Int(figure.bestRate).formatted, format3(figure.medianCPU * 1e6) + " µs",
                format3(figure.medianHostCPU * 1e6) + " µs", format3(figure.p99Milliseconds) + " ms",
            ])
            results[mode] = [
                "itemsPerSecond": .array(figure.rates.map(JSONValue.number)),
                "cpuSecondsPerItem": .array(figure.cpuPerItem.map(JSONValue.number)),
                "hostCPUSecondsPerItem": .array(figure.hostCPUPerItem.map(JSONValue.number)),
                "p99Milliseconds": .array(figure.p99s.map(JSONValue.number)),
            ]
        }
        let process = figures["process"]!, inProcess = figures["in_process"]!
        let throughputRatio = process.bestRate / inProcess.bestRate
        let latencyRatio = process.p99Milliseconds / max(inProcess.p99Milliseconds, 1e-9)
        table.add([
            "process / in_process", format3(throughputRatio), format3(process.medianCPU / inProcess.medianCPU), "",
            format3(latencyRatio),
        ])
        table.footnotes.append("targets: throughput ratio at least 0.9, p99 ratio at most 1.2")
        results["throughputRatio"] = .number(throughputRatio)
        results["p99Ratio"] = .number(latencyRatio)
        return table.render()
    }
}
