import Logging
import RowCastEngine
import RowCastPluginHosting
import RowCastJSON

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's per-item work without sockets: `Engine.process` on batches of car-feed
/// upserts, rendered by the real release plugins. Timed in thread CPU time, so the figure
/// holds on a busy machine: it is the ceiling for rowcastd's end-to-end rate on one core.
struct EngineBenchmark {
    var items = 200_000
    var batch = 4096
    var results = JSONObject()

    mutating func run() -> String {
        let renderer = PluginRenderer.load(directories: [BenchDaemon.productsDirectory], logger: Logger(label: "bench"))
        let engine = Engine(renderer: renderer, logger: Logger(label: "bench"))
        let messages = (0..<items).map { IncomingMessage(origin: .ingest, body: CarFeed.upsert($0, run: "engine")) }
        var published = 0
        let cpu = Self.threadCPUSeconds {
            var start = 0
            while start < messages.count {
                let end = min(start + batch, messages.count)
                published += engine.process(Array(messages[start..<end])).publications.count
                start = end
            }
        }
        precondition(published > 0)
        let rows = engine.feeds.values.reduce(0) { $0 + $1.rowCount }
        precondition(rows == items, "engine rendered \(rows) rows of \(items)")
        var table = BenchTable(
            title: "Engine alone: Engine.process, real plugins, batches of \(batch) (thread CPU time)",
            header: ["items", "CPU seconds", "items per CPU-second", "µs per item"])
        table.add([
            items.formatted, format3(cpu), Int(Double(items) / cpu).formatted, format3(cpu / Double(items) * 1e6),
        ])
        results = [
            "items": .number(Double(items)), "cpuSeconds": .number(cpu),
            "itemsPerCPUSecond": .number(Double(items) / cpu),
        ]
        return table.render()
    }

    /// `Engine.process` over `items` car upserts in batches of 4096, with the real plugins in
    /// process, and nothing else (no timing, no table); each further round sends the same items
    /// again with another price (updates of existing items: reconfigured rows).
    static func processOnly(items: Int, rounds: Int = 1) {
        let renderer = PluginRenderer.load(directories: [BenchDaemon.productsDirectory], logger: Logger(label: "bench"))
        let engine = Engine(renderer: renderer, logger: Logger(label: "bench"))
        for priceChange in 0..<rounds {
            let messages = (0..<items).map {
                IncomingMessage(origin: .ingest, body: CarFeed.upsert($0, run: "engine", priceChange: priceChange))
            }
            var start = 0
            while start < messages.count {
                let end = min(start + 4096, messages.count)
                _ = engine.process(Array(messages[start..<end]))
                start = end
            }
        }
        precondition(engine.feeds.values.reduce(0) { $0 + $1.rowCount } == items)
    }

    /// CPU time the calling thread spent in `body`.
    static func threadCPUSeconds(_ body: () -> Void) -> Double {
        var start = timespec()
        var end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }
}
