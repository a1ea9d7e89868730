import RowCastJSON

/// One workload of rowcast-bench: it runs, returns its table, and keeps its figures for
/// bench-results.json.
protocol BenchWorkload {
    /// The workload with its standard settings.
    init()
    /// Measures, and returns the table to print.
    mutating func run() throws -> String
    /// The figures of the last run (what there is of them after a failure).
    var results: JSONObject { get }
}

extension DiffBenchmark: BenchWorkload {}
extension EngineBenchmark: BenchWorkload {}
extension RepliesBenchmark: BenchWorkload {}
extension ThroughputBenchmark: BenchWorkload {}
extension LatencyBenchmark: BenchWorkload {}
extension AckedBenchmark: BenchWorkload {}
extension IsolationBenchmark: BenchWorkload {}
extension ScaleBenchmark: BenchWorkload {}
extension CurveBenchmark: BenchWorkload {}
extension WatchBenchmark: BenchWorkload {}
extension CellsBenchmark: BenchWorkload {}
extension InstructionsBenchmark: BenchWorkload {}
extension GatewayBenchmark: BenchWorkload {}
extension ClusterBenchmark: BenchWorkload {}
extension CoresBenchmark: BenchWorkload {}
