import Foundation
import RowCastClient
import RowCastJSON
#if canImport(Glibc)
import Glibc
#endif

/// Issue 18's web gateway: `rowcast serve` (release) in front of a release rowcastd, with 1,
/// 100 and 1,000 WebSocket connections on one feed. A producer sends acked upserts (each one
/// delta, a reconfigure of one of ten rows) as fast as they are acked; the figure is how many
/// deltas per second reach every connection (from the first upsert to the last connection
/// holding the last delta), and the gateway's resident memory per connection (its RSS with
/// the connections open and their openings read, less its RSS before, over their number).
struct GatewayBenchmark {
    /// The numbers of connections measured.
    static let connectionCounts = [1, 100, 1_000]
    /// Deltas published per measurement.
    static let deltas = 1_000
    /// The feed.
    static let feed = "bench"

    var results = JSONObject()

    mutating func run() throws -> String {
        var table = BenchTable(
            title: "Gateway: \(Self.deltas.formatted) deltas fanned out over WebSocket (rowcast serve)",
            header: [
                "connections", "deltas/s to each", "messages/s in all", "seconds", "RSS per connection",
                "closed as slow",
            ])
        let daemon = try BenchDaemon()
        defer { daemon.stop() }
        let control = try ControlClient(endpoint: daemon.control, timeout: .seconds(30))
        defer { control.close() }
        for index in 0..<10 { _ = try control.upsert(feed: Self.feed, item: Self.item(index, price: 1)) }
        let gateway = try BenchGateway(daemon: daemon, buffer: Self.deltas * 2 + 64)
        defer { gateway.stop() }
        var figures: [JSONValue] = []
        var round = 0
        for count in Self.connectionCounts {
            round += 1
            let before = gateway.residentBytes
            var sockets: [BenchWebSocket] = []
            for _ in 0..<count {
                sockets.append(
                    try BenchWebSocket(
                        port: gateway.port, path: "/feeds/\(Self.feed)/stream", counting: #"{"event":"delta""#))
            }
            // The openings (snapshot, position) are read before measuring memory.
            Self.pump(sockets, seconds: 1.0) { false }
            let after = gateway.residentBytes

            let published = DispatchSemaphore(value: 0)
            let endpoint = daemon.control
            let base = round * 1_000_000
            let start = ContinuousClock.now
            let producer = Thread {
                defer { published.signal() }
                guard let client = try? ControlClient(endpoint: endpoint, timeout: .seconds(30)) else { return }
                defer { client.close() }
                for index in 0..<Self.deltas {
                    _ = try? client.upsert(feed: Self.feed, item: Self.item(index % 10, price: base + index))
                }
            }
            producer.start()
            let finished = Self.pump(sockets, seconds: 300) {
                sockets.allSatisfy { $0.counted >= Self.deltas || $0.closed }
            }
            let seconds = (ContinuousClock.now - start).seconds
            published.wait()
            let closed = sockets.filter(\.closed).count
            let perSecond = Double(Self.deltas) / seconds
            let perConnection = count > 0 ? Double(after - before) / Double(count) : 0
            table.add([
                count.formatted, format3(perSecond), format3(perSecond * Double(count - closed)), format3(seconds),
                "\(format3(perConnection / 1024)) KiB", "\(closed)" + (finished ? "" : " (timed out)"),
            ])
            figures.append([
                "connections": .number(Double(count)), "deltasPerSecond": .number(perSecond),
                "seconds": .number(seconds), "rssBytesPerConnection": .number(perConnection),
                "closedAsSlow": .number(Double(closed)), "rssBytes": .number(Double(after)),
            ])
            sockets.removeAll()
            Thread.sleep(forTimeInterval: 1)
        }
        results["fanOut"] = .array(figures)
        table.footnotes = [
            "one feed of 10 rows; each delta reconfigures one row (about 500 bytes); the producer waits for each ack;",
            "RSS per connection: the gateway's VmRSS with the connections open, less before, over their number;",
            "closed as slow: connections the gateway closed because \((Self.deltas * 2 + 64).formatted) messages waited (none expected).",
        ]
        return table.render()
    }

    /// Reads every socket as data comes, for at most `seconds`, until `done` holds.
    @discardableResult
    static func pump(_ sockets: [BenchWebSocket], seconds: Double, until done: () -> Bool) -> Bool {
        var descriptors = sockets.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if done() { return true }
            let ready = poll(&descriptors, nfds_t(descriptors.count), 50)
            guard ready > 0 else { continue }
            for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                sockets[index].readAvailable()
                descriptors[index].revents = 0
            }
        }
        return done()
    }

    /// Product item `index` of the bench feed at `price`.
    static func item(_ index: Int, price: Int) -> JSONValue {
        [
            "id": .string("car-\(index)"), "type": "product",
            "data": [
                "name": .string("Tesla Model 3 Long Range \(index)"), "operatedBy": "Tesla Inc.",
                "price": .number(Double(price)),
                "image": .string("https://img.example/cars/\(index).png"),
            ],
        ]
    }
}
