import Testing
import ZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("PUSH to PULL")
struct PushPullTests {
    @Test("one frame arrives intact", arguments: transports)
    func singleFrame(endpoint: String) throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        let push = try openSocket(context, .push)
        defer { push.close(); pull.close() }
        try push.connect(try bindReal(pull, endpoint))

        #expect(try push.send(bytes("row 1")))
        let frame = try #require(try pull.receive())
        #expect(text(frame) == "row 1")
        #expect(try pull.hasMore == false)
    }

    @Test("multipart keeps frames, order and empty frames", arguments: transports)
    func multipart(endpoint: String) throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        let push = try openSocket(context, .push)
        defer { push.close(); pull.close() }
        try push.connect(try bindReal(pull, endpoint))

        let sent: [[UInt8]] = [bytes("feed"), [], bytes("item"), [], [0, 255, 0]]
        #expect(try push.send(sent))
        #expect(try push.send([[]]))
        #expect(try pull.receiveMultipart() == sent)
        #expect(try pull.receiveMultipart() == [[]])
    }

    @Test("a 1 MiB frame arrives byte for byte", arguments: transports)
    func largeFrame(endpoint: String) throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        let push = try openSocket(context, .push)
        defer { push.close(); pull.close() }
        try push.connect(try bindReal(pull, endpoint))

        let large = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        #expect(try push.send([bytes("big"), large]))
        let frames = try #require(try pull.receiveMultipart())
        #expect(frames.count == 2)
        #expect(frames.first == bytes("big"))
        #expect(frames.last?.count == large.count)
        #expect(frames.last == large)
    }

    @Test("frames sent one by one with more form one message; hasMore follows them", arguments: transports)
    func framesWithMore(endpoint: String) throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        let push = try openSocket(context, .push)
        defer { push.close(); pull.close() }
        try push.connect(try bindReal(pull, endpoint))

        #expect(try push.send(bytes("a"), more: true))
        #expect(try push.send(bytes("b"), more: true))
        #expect(try push.send(bytes("c")))
        #expect(try push.send(bytes("next")))

        #expect(try pull.receive() == bytes("a"))
        #expect(try pull.hasMore)
        #expect(try pull.receive() == bytes("b"))
        #expect(try pull.hasMore)
        #expect(try pull.receive() == bytes("c"))
        #expect(try pull.hasMore == false)
        #expect(try pull.receiveMultipart() == [bytes("next")])
    }

    @Test("a wildcard tcp bind reports the real port")
    func lastEndpointHasPort() throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        defer { pull.close() }
        let endpoint = try bindReal(pull, "tcp://127.0.0.1:*")
        #expect(endpoint.hasPrefix("tcp://127.0.0.1:"))
        let port = try #require(Int(endpoint.dropFirst("tcp://127.0.0.1:".count)))
        #expect(port > 0 && port < 65_536)
    }

    @Test("unbind and disconnect take the exact endpoint strings")
    func unbindAndDisconnect() throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        let push = try openSocket(context, .push)
        defer { push.close(); pull.close() }
        let endpoint = try bindReal(pull, "tcp://127.0.0.1:*")
        try push.connect(endpoint)
        #expect(try push.send(bytes("before")))
        #expect(try pull.receive() == bytes("before"))

        try push.disconnect(endpoint)
        try pull.unbind(endpoint)
        // With its only peer gone, the PUSH socket has nowhere to queue.
        #expect(try push.send(bytes("after"), dontWait: true) == false)
        // Both endpoints are gone: doing it again is an error.
        #expect(throws: ZeroMQError.self) { try push.disconnect(endpoint) }
        #expect(throws: ZeroMQError.self) { try pull.unbind(endpoint) }

        // libzmq closes the listener in its I/O thread, so the port frees up shortly after
        // unbind returns, not at once. Retry a bounded number of times.
        let other = try openSocket(context, .pull)
        defer { other.close() }
        var attempts = 0
        while try !bindUnlessInUse(other, endpoint), attempts < 500 {
            attempts += 1
            usleep(10_000)
        }
        #expect(try other.lastEndpoint == endpoint)
    }

    /// Binds `socket` to `endpoint`; false instead of an error when the port is still in use.
    func bindUnlessInUse(_ socket: Socket, _ endpoint: String) throws -> Bool {
        do {
            try socket.bind(endpoint)
            return true
        } catch {
            guard error.errno == EADDRINUSE else { throw error }
            return false
        }
    }
}
