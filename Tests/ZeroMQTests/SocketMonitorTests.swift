import Testing
import ZeroMQ

/// `SocketMonitor`: the connection events of a socket, read from its inproc PAIR.
@Suite struct SocketMonitorTests {
    /// Reads events until one of `kinds` arrives (at most 5 s); the events seen.
    func events(of monitor: SocketMonitor, until kinds: SocketEvent.Kind) throws -> [SocketEvent] {
        let poller = Poller()
        poller.register(monitor.socket)
        let end = ContinuousClock.now.advanced(by: .seconds(5))
        var seen: [SocketEvent] = []
        while ContinuousClock.now < end {
            while let event = try monitor.nextEvent() {
                seen.append(event)
                if !event.kind.intersection(kinds).isEmpty { return seen }
            }
            _ = try poller.poll(timeoutMilliseconds: 100)
        }
        return seen
    }

    @Test("a connect to a tcp port with nothing listening reports connect_retried, naming the endpoint")
    func refusedConnectIsReported() throws {
        let context = try Context()
        // A port that was bound a moment ago and is now closed: nothing listens there.
        let probe = try openSocket(context, .rep)
        let endpoint = try bindReal(probe, "tcp://127.0.0.1:*")
        try probe.unbind(endpoint)
        probe.close()

        let dealer = try openSocket(context, .dealer)
        let monitor = try SocketMonitor(watching: dealer)
        defer { monitor.close() }
        try dealer.connect(endpoint)
        let seen = try events(of: monitor, until: .connectRetried)
        #expect(seen.last?.kind == .connectRetried, "\(seen)")
        #expect(seen.last?.endpoint == endpoint)
        #expect(!seen.contains { $0.kind == .connected })
    }

    @Test("a connect to a listening socket reports connected and handshake_succeeded")
    func connectionIsReported() throws {
        let context = try Context()
        let router = try openSocket(context, .router)
        let endpoint = try bindReal(router, "tcp://127.0.0.1:*")
        let dealer = try openSocket(context, .dealer)
        let monitor = try SocketMonitor(watching: dealer)
        defer { monitor.close() }
        try dealer.connect(endpoint)
        let seen = try events(of: monitor, until: .handshakeSucceeded)
        #expect(seen.contains { $0.kind == .connected }, "\(seen)")
        #expect(seen.last?.kind == .handshakeSucceeded)
        #expect(!seen.contains { $0.kind == .connectRetried })
    }

    @Test("closing the monitor twice, or after the socket, does nothing")
    func closeIsIdempotent() throws {
        let context = try Context()
        let dealer = try openSocket(context, .dealer)
        let monitor = try SocketMonitor(watching: dealer)
        monitor.close()
        monitor.close()
        dealer.close()
        #expect(throws: ZeroMQError.self) { _ = try SocketMonitor(watching: dealer) }
    }
}
