import Foundation
import RowCastJSON
import ZeroMQ

/// Issue 6's scale figures: one feed of a million car-feed rows loaded through a real rowcastd
/// (store on), its peak and current resident memory and bytes per row, and the time from
/// launching a new rowcastd on that state to its ready line (every item loaded and rendered).
struct ScaleBenchmark {
    var rows = Int(ProcessInfo.processInfo.environment["ROWCAST_BENCH_SCALE_ROWS"] ?? "") ?? 1_000_000
    var results = JSONObject()

    mutating func run() throws -> String {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("rowcast-scale-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let context = try Context()
        let loading: Double
        let peak: Int
        let resident: Int
        do {
            let daemon = try BenchDaemon(stateDirectory: state, extraArguments: ["--heartbeat-ms", "50"])
            defer { daemon.stop() }
            let subscriber = try BenchSubscriber.live(
                context: context, publish: daemon.publish, topics: [Array("rows.big".utf8) + [0]],
                timeoutMilliseconds: 60_000)
            let messages = (0..<rows).map { index in
                Array(
                    #"{"op":"upsert","feed":"big","item":{"id":"big-\#(index)","type":"product","section":"s\#(index % 3)","sort":\#(index),"data":{"name":"Tesla Model 3 Long Range \#(index)","operatedBy":"Tesla Inc.","price":\#(30000 + index % 20000),"image":"https://img.example/cars/\#(index % 997).png"}}}"#
                        .utf8)
            }
            let start = ContinuousClock.now
            ThroughputBenchmark.startProducer(context: context, endpoint: daemon.ingest, messages: messages)
            var received = 0
            while received < rows {
                guard let frames = try subscriber.receiveMultipart() else {
                    throw BenchFailure("scale: stalled at \(received) of \(rows) rows")
                }
                let before = received / 100_000
                received += CarFeed.rowCount(in: frames[1])
                if received / 100_000 != before {
                    print("scale: \(received) rows after \(format3((ContinuousClock.now - start).seconds)) s")
                }
            }
            loading = (ContinuousClock.now - start).seconds
            subscriber.close()
            peak = daemon.peakResidentBytes
            resident = daemon.residentBytes
        }
        let restarted = try BenchDaemon(stateDirectory: state)
        let ready = restarted.secondsToReady
        let restartedResident = restarted.residentBytes
        let status = try Self.status(context: context, control: restarted.control)
        restarted.stop()
        let feedRows = status["feeds"]?.arrayValue?.first { $0["feed"] == "big" }?["rows"]?.numberValue ?? 0
        guard Int(feedRows) == rows else {
            throw BenchFailure("scale: the restarted daemon has \(Int(feedRows)) rows, not \(rows)")
        }

        var table = BenchTable(
            title: "Scale: \(rows.formatted) rows in one feed (store on, durability normal, real plugins)",
            header: ["load", "peak RSS", "RSS after load", "bytes per row", "restart to ready", "RSS after restart"])
        table.add([
            format3(loading) + " s", Self.mebibytes(peak), Self.mebibytes(resident),
            Int(Double(resident) / Double(rows)).formatted,
            format3(ready) + " s", Self.mebibytes(restartedResident),
        ])
        results = [
            "rows": .number(Double(rows)), "loadSeconds": .number(loading), "peakResidentBytes": .number(Double(peak)),
            "residentBytes": .number(Double(resident)), "bytesPerRow": .number(Double(resident) / Double(rows)),
            "restartToReadySeconds": .number(ready), "residentAfterRestartBytes": .number(Double(restartedResident)),
        ]
        return table.render()
    }

    static func mebibytes(_ bytes: Int) -> String { format3(Double(bytes) / 1_048_576) + " MiB" }

    /// The daemon's `status` reply.
    static func status(context: Context, control: String) throws -> JSONValue {
        let dealer = try Socket(context: context, type: .dealer)
        defer { dealer.close() }
        try dealer.setOption(.linger, 0)
        try dealer.setOption(.receiveTimeout, 30_000)
        try dealer.connect(control)
        _ = try dealer.send([[], Array(#"{"op":"status"}"#.utf8)])
        guard let frames = try dealer.receiveMultipart(), let body = frames.last else {
            throw BenchFailure("scale: no status reply")
        }
        return try JSONParser.parse(body)
    }
}
