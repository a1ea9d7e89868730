import RowCastJSON

/// Issue 12: the `throughput` end-to-end run over plain loopback TCP and over CURVE (ZAP, per-
/// feed permissions, XPUB with manual subscriptions), alternating, in one run: what
/// authentication and encryption cost a producer and a subscriber on this machine.
struct CurveBenchmark {
    var items = 100_000
    var rounds = 2
    var results = JSONObject()

    mutating func run() throws -> String {
        var table = BenchTable(
            title:
                "CURVE: car feed items (~250 bytes), PUSH into rowcastd over tcp loopback, one subscriber, \(rounds) rounds alternating",
            header: ["transport", "items", "best seconds", "items/s", "vs plain", "CPU/item (rowcastd)"])
        let curve = try BenchCurve()
        defer { curve.remove() }
        var plain: [EndToEndRun] = []
        var secured: [EndToEndRun] = []
        for round in 0..<rounds {
            plain.append(try ThroughputBenchmark.endToEnd(items: items, run: "plain\(round)"))
            secured.append(try ThroughputBenchmark.endToEnd(items: items, run: "curve\(round)", curve: curve))
        }
        let bestPlain = plain.min { $0.seconds < $1.seconds }!
        let bestCurve = secured.min { $0.seconds < $1.seconds }!
        let plainRate = Double(items) / bestPlain.seconds
        let curveRate = Double(items) / bestCurve.seconds
        let count = Double(items)
        let perItem = { (run: EndToEndRun) in format3(run.daemonCPUSeconds / count * 1e6) + " µs" }
        table.add([
            "plain tcp", items.formatted, format3(bestPlain.seconds), Int(plainRate).formatted, "1.00",
            perItem(bestPlain),
        ])
        table.add([
            "CURVE + ZAP + permissions", items.formatted, format3(bestCurve.seconds), Int(curveRate).formatted,
            format3(curveRate / plainRate), perItem(bestCurve),
        ])
        results["plain"] = [
            "items": .number(Double(items)), "seconds": .number(bestPlain.seconds),
            "itemsPerSecond": .number(plainRate),
            "daemonCPUSeconds": .number(bestPlain.daemonCPUSeconds),
        ]
        results["curve"] = [
            "items": .number(Double(items)), "seconds": .number(bestCurve.seconds),
            "itemsPerSecond": .number(curveRate),
            "daemonCPUSeconds": .number(bestCurve.daemonCPUSeconds), "ratioToPlain": .number(curveRate / plainRate),
        ]
        return table.render()
    }
}
