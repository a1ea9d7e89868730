import Foundation
import Logging
import RowCastEngine
import RowCastPluginHosting
import RowCastJSON

/// What a big reply costs: a chunked snapshot (all of it, and the part rowcastd's loop
/// thread does: taking the view; its snapshot thread writes the rows) and a status of one feed of
/// `rows` car rows (1,000,000 by default; `ROWCAST_BENCH_REPLY_ROWS`), built by
/// `Engine.process` with the real release plugins, timed in thread CPU time (the fastest of
/// `ROWCAST_BENCH_REPLY_REPEATS` runs, 3 by default).
struct RepliesBenchmark {
    var rows = Int(ProcessInfo.processInfo.environment["ROWCAST_BENCH_REPLY_ROWS"] ?? "") ?? 1_000_000
    var repeats = max(1, Int(ProcessInfo.processInfo.environment["ROWCAST_BENCH_REPLY_REPEATS"] ?? "") ?? 3)
    var results = JSONObject()

    mutating func run() -> String {
        let renderer = PluginRenderer.load(directories: [BenchDaemon.productsDirectory], logger: Logger(label: "bench"))
        let engine = Engine(renderer: renderer, logger: Logger(label: "bench"))
        var start = 0
        while start < rows {
            let end = min(start + 4096, rows)
            _ = engine.process(
                (start..<end).map { index in
                    let item =
                        #"{"op":"upsert","feed":"big","item":{"id":"\#(index)","type":"product","section":"s\#(index % 4)","data":{"name":"Tesla Model 3 \#(index)","operatedBy":"Tesla Inc.","price":\#(30000 + index % 20000),"image":"https://img.example/cars/\#(index % 997).png"}}}"#
                    return IncomingMessage(origin: .ingest, body: Array(item.utf8))
                })
            start = end
        }
        /// The fastest of `repeats` runs (`ROWCAST_BENCH_REPLY_REPEATS`, 3 by default).
        func timed(_ request: String) -> (seconds: Double, replies: Int, bytes: Int) {
            var output = EngineOutput()
            var fastest = Double.infinity
            for _ in 0..<repeats {
                fastest = min(
                    fastest,
                    EngineBenchmark.threadCPUSeconds {
                        output = engine.process([
                            IncomingMessage(origin: .control(replyTo: 1), body: Array(request.utf8))
                        ])
                    })
            }
            return (fastest, output.replies.count, output.replies.reduce(0) { $0 + $1.body.count })
        }
        let snapshot = timed(#"{"op":"snapshot","feed":"big","chunked":true}"#)
        let status = timed(#"{"op":"status"}"#)
        // As rowcastd runs it: the loop only takes the view, the snapshot thread writes it.
        engine.writesSnapshotsLater = true
        var job: SnapshotJob?
        var taken = Double.infinity
        for _ in 0..<repeats {
            taken = min(
                taken,
                EngineBenchmark.threadCPUSeconds {
                    job =
                        engine.process([
                            IncomingMessage(
                                origin: .control(replyTo: 1),
                                body: Array(#"{"op":"snapshot","feed":"big","chunked":true}"#.utf8))
                        ]).snapshots.first
                })
        }
        precondition(job != nil)
        // Recovery after missing the last 10 deltas: since (history) against a snapshot.
        engine.writesSnapshotsLater = false
        let missedFrom = engine.feeds["big"]!.seq
        for index in 0..<10 {
            let item =
                #"{"op":"upsert","feed":"big","item":{"id":"\#(index * 7919)","type":"product","section":"s0","data":{"name":"Changed \#(index)","operatedBy":"Tesla Inc.","price":1,"image":"https://img.example/x.png"}}}"#
            _ = engine.process([IncomingMessage(origin: .ingest, body: Array(item.utf8))])
        }
        let epoch = engine.feeds["big"]!.epoch
        let since = timed(#"{"op":"since","feed":"big","epoch":"\#(epoch)","seq":\#(missedFrom)}"#)
        var table = BenchTable(
            title: "Big replies: one feed of \(rows.formatted) rows (thread CPU time)",
            header: ["request", "ms", "replies", "bytes", "ns per row"])
        table.add([
            "snapshot, chunked: all of it", format3(snapshot.seconds * 1000), snapshot.replies.formatted,
            snapshot.bytes.formatted, format3(snapshot.seconds / Double(rows) * 1e9),
        ])
        table.add(["  of which on rowcastd's loop", format3(taken * 1000), "", "", format3(taken / Double(rows) * 1e9)])
        table.add([
            "status", format3(status.seconds * 1000), status.replies.formatted, status.bytes.formatted,
            format3(status.seconds / Double(rows) * 1e9),
        ])
        table.add([
            "since, 10 deltas missed", format3(since.seconds * 1000), since.replies.formatted, since.bytes.formatted,
            "",
        ])
        let ratio = Double(snapshot.bytes) / Double(max(since.bytes, 1))
        results = [
            "rows": .number(Double(rows)), "storedBytes": .number(Double(engine.storedBytes)),
            "snapshotMilliseconds": .number(snapshot.seconds * 1000),
            "snapshotParts": .number(Double(snapshot.replies)),
            "snapshotBytes": .number(Double(snapshot.bytes)), "snapshotLoopMilliseconds": .number(taken * 1000),
            "statusMilliseconds": .number(status.seconds * 1000),
            "sinceBytes": .number(Double(since.bytes)), "sinceMilliseconds": .number(since.seconds * 1000),
            "snapshotToSinceBytes": .number(ratio),
        ]
        return table.render()
            + "recovering from 10 missed deltas: since takes \(Int(ratio).formatted) times fewer bytes than a snapshot\n"
    }
}
