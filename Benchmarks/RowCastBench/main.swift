import Foundation
import RowCastEngine
import RowCastTesting
import RowCastJSON

#if canImport(Glibc)
import Glibc
#endif

// rowcast-bench: `make bench` runs it in release mode. It prints readable tables and writes
// the same figures to bench-results.json (not committed), with the machine, build and date.

/// Every workload, by the name that selects it, in the order they run.
let workloadTypes: [(name: String, type: any BenchWorkload.Type)] = [
    ("diff", DiffBenchmark.self), ("engine", EngineBenchmark.self), ("throughput", ThroughputBenchmark.self),
    ("latency", LatencyBenchmark.self), ("acked", AckedBenchmark.self), ("isolation", IsolationBenchmark.self),
    ("scale", ScaleBenchmark.self),
    ("curve", CurveBenchmark.self), ("replies", RepliesBenchmark.self), ("watch", WatchBenchmark.self),
    ("cells", CellsBenchmark.self), ("instructions", InstructionsBenchmark.self), ("gateway", GatewayBenchmark.self),
    ("cluster", ClusterBenchmark.self), ("cores", CoresBenchmark.self),
]
let workloads = workloadTypes.map(\.name)
let arguments = Array(CommandLine.arguments.dropFirst())
// `--engine-only N`: Engine.process over N items and nothing else, for the `instructions`
// workload to count under callgrind.
if arguments.first == "--engine-only", arguments.count == 2, let items = Int(arguments[1]) {
    EngineBenchmark.processOnly(items: items)
    exit(0)
}
// `--engine-updates-only N`: N car upserts through Engine.process, then the same items again
// with another price (updates of existing items), for the `instructions` workload.
if arguments.first == "--engine-updates-only", arguments.count == 2, let items = Int(arguments[1]) {
    EngineBenchmark.processOnly(items: items, rounds: 2)
    exit(0)
}
// `--sdk-only N`: the product plugin's render of N items through its C entry, for the
// `instructions` workload.
if arguments.first == "--sdk-only", arguments.count == 2, let items = Int(arguments[1]) {
    SDKRenderOnly.run(items: items)
    exit(0)
}
// `--store-only N`: N items committed to a SQLite store in commits of 64, for the
// `instructions` workload (which counts only the commits).
if arguments.first == "--store-only", arguments.count == 2, let items = Int(arguments[1]) {
    StoreCommitOnly.run(items: items)
    exit(0)
}
// `--diff-only`: DifferenceKit's UUID workload through SnapshotDiff once (to profile it).
if arguments.first == "--diff-only" {
    let workload = DiffBenchmark.workloads[2]
    var random = SplitMix64(state: UInt64(workload.rows))  // the seed the diff workload uses
    let (source, target) = DiffBenchmark.makePair(workload, &random)
    let delta = SnapshotDiff.delta(from: DiffBenchmark.snapshot(source), to: DiffBenchmark.snapshot(target))
    print(delta.insertedRows.count, delta.deletedRows.count, delta.movedRows.count)
    exit(0)
}
if arguments.first == "--daemon-only", arguments.count == 3 {
    DaemonOnly.run(binaries: arguments[1], state: arguments[2])
}
if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) {
    print(
        """
        usage: rowcast-bench [workload ...]

        Runs the named workloads (all of them when none is named), prints a table per workload
        and writes the figures to bench-results.json. Workloads: \(workloads.joined(separator: ", ")).
        See Benchmarks/README.md for what each measures. Put the state on tmpfs with
        TMPDIR=/dev/shm.
        """)
    exit(0)
}
if let unknown = arguments.first(where: { !workloads.contains($0) }) {
    FileHandle.standardError.write(
        Data(
            "rowcast-bench: unknown workload \"\(unknown)\" (workloads: \(workloads.joined(separator: ", ")); --help for usage)\n"
                .utf8))
    exit(64)
}
let selected = Set(arguments)
func wanted(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }

// Writes still in flight (a build just finished) would be flushed in the middle of a
// measurement, stalling the daemon's commits; flush them first.
sync()

var results = BenchEnvironment.describe()
print("rowcast-bench: \(results["machine"]?.stringValue ?? "?"), \(results["build"]?.stringValue ?? "?") build")

for (name, type) in workloadTypes where wanted(name) {
    var workload = type.init()
    do {
        print(try workload.run())
    } catch {
        print("\(name): \(error)")
    }
    results[name] = .object(workload.results)
}

let json = JSONValue.object(results).serialized()
if let file = fopen("bench-results.json", "w") {
    _ = json.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
    print("figures written to bench-results.json")
}
