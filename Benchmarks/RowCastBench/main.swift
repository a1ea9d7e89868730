import RowCastKit

#if canImport(Glibc)
import Glibc
#endif

// rowcast-bench: `make bench` runs it in release mode. It prints readable tables and writes
// the same figures to bench-results.json (not committed), with the machine, build and date.

let arguments = Array(CommandLine.arguments.dropFirst())
let selected = Set(arguments.filter { !$0.hasPrefix("-") })
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
