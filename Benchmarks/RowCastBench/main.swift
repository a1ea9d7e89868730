import Foundation
import RowCastKit

#if canImport(Glibc)
import Glibc
#endif

// rowcast-bench: `make bench` runs it in release mode. It prints readable tables and writes
// the same figures to bench-results.json (not committed), with the machine, build and date.

let workloads = ["diff", "engine", "throughput", "latency", "acked", "scale"]
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) {
    print("""
        usage: rowcast-bench [workload ...]

        Runs the named workloads (all of them when none is named), prints a table per workload
        and writes the figures to bench-results.json. Workloads: \(workloads.joined(separator: ", ")).
        See Benchmarks/README.md for what each measures. Put the state on tmpfs with
        TMPDIR=/dev/shm.
        """)
    exit(0)
}
if let unknown = arguments.first(where: { !workloads.contains($0) }) {
    FileHandle.standardError.write(Data("rowcast-bench: unknown workload \"\(unknown)\" (workloads: \(workloads.joined(separator: ", ")); --help for usage)\n".utf8))
    exit(64)
}
let selected = Set(arguments)
func wanted(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }

// Writes still in flight (a build just finished) would be flushed in the middle of a
// measurement, stalling the daemon's commits; flush them first.
sync()

var results = BenchEnvironment.describe()
print("rowcast-bench: \(results["machine"]?.stringValue ?? "?"), \(results["build"]?.stringValue ?? "?") build")

if wanted("diff") {
    var benchmark = DiffBenchmark()
    print(benchmark.run())
    results["diff"] = .object(benchmark.results)
}

if wanted("engine") {
    var benchmark = EngineBenchmark()
    print(benchmark.run())
    results["engine"] = .object(benchmark.results)
}

if wanted("throughput") {
    var benchmark = ThroughputBenchmark()
    do {
        print(try benchmark.run())
    } catch {
        print("throughput: \(error)")
    }
    results["throughput"] = .object(benchmark.results)
}

if wanted("latency") {
    var benchmark = LatencyBenchmark()
    do {
        print(try benchmark.run())
    } catch {
        print("latency: \(error)")
    }
    results["latency"] = .object(benchmark.results)
}

if wanted("acked") {
    var benchmark = AckedBenchmark()
    do {
        print(try benchmark.run())
    } catch {
        print("acked: \(error)")
    }
    results["acked"] = .object(benchmark.results)
}

if wanted("scale") {
    var benchmark = ScaleBenchmark()
    do {
        print(try benchmark.run())
    } catch {
        print("scale: \(error)")
    }
    results["scale"] = .object(benchmark.results)
}

let json = JSONValue.object(results).serialized()
if let file = fopen("bench-results.json", "w") {
    _ = json.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
    print("figures written to bench-results.json")
}
