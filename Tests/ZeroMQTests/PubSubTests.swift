import Testing
import ZeroMQ

@Suite("PUB to SUB")
struct PubSubTests {
    /// Publishes `probe` until `sub` receives a first message (the slow-joiner handshake), at most
    /// `attempts` times, and returns that message.
    func publishUntilReceived(
        _ pub: Socket, _ sub: Socket, probe: [[UInt8]], attempts: Int = 500
    ) throws -> [[UInt8]]? {
        let poller = Poller()
        poller.register(sub)
        for _ in 0..<attempts {
            #expect(try pub.send(probe))
            if try poller.poll(timeoutMilliseconds: 10) > 0 {
                return try sub.receiveMultipart()
            }
        }
        return nil
    }

    @Test("a subscription receives its prefix and nothing else", arguments: transports)
    func prefixFiltering(endpoint: String) throws {
        let context = try Context()
        let pub = try openSocket(context, .pub)
        let sub = try openSocket(context, .sub)
        defer { sub.close(); pub.close() }
        try sub.subscribe("rows.car")
        try sub.connect(try bindReal(pub, endpoint))

        let first = try #require(try publishUntilReceived(pub, sub, probe: [bytes("rows.car.probe"), bytes("p")]))
        #expect(first == [bytes("rows.car.probe"), bytes("p")])

        // Messages on one connection keep their order: if "rows.bus" got through, it would
        // arrive before "rows.car.last".
        #expect(try pub.send([bytes("rows.bus"), bytes("bus 1")]))
        #expect(try pub.send([bytes("rows.car.7"), bytes("car 7")]))
        #expect(try pub.send([bytes("rows.bu"), bytes("bus 2")]))
        #expect(try pub.send([bytes("rows.car.last"), bytes("end")]))

        var topics: [String] = []
        while let message = try sub.receiveMultipart(), let topic = message.first {
            if text(topic) == "rows.car.probe" { continue }  // probes still in flight
            topics.append(text(topic))
            if text(topic) == "rows.car.last" { break }
        }
        #expect(topics == ["rows.car.7", "rows.car.last"])
    }

    @Test("after unsubscribe the prefix no longer arrives")
    func unsubscribe() throws {
        let context = try Context()
        let pub = try openSocket(context, .pub)
        let sub = try openSocket(context, .sub)
        defer { sub.close(); pub.close() }
        try sub.subscribe(bytes("rows.car"))
        try sub.connect(try bindReal(pub, "tcp://127.0.0.1:*"))
        _ = try #require(try publishUntilReceived(pub, sub, probe: [bytes("rows.car.probe")]))

        try sub.unsubscribe("rows.car")
        try sub.subscribe("sync")
        // The publisher applies (un)subscriptions in order, so once "sync" arrives the
        // unsubscription of "rows.car" is in effect too.
        _ = try #require(try publishUntilReceived(pub, sub, probe: [bytes("sync.probe")]))
        #expect(try pub.send([bytes("rows.car.9")]))
        #expect(try pub.send([bytes("sync.last")]))

        var topics: [String] = []
        while let message = try sub.receiveMultipart(), let topic = message.first {
            if text(topic) == "sync.probe" || text(topic) == "rows.car.probe" { continue }
            topics.append(text(topic))
            if text(topic) == "sync.last" { break }
        }
        #expect(topics == ["sync.last"])
    }
}
