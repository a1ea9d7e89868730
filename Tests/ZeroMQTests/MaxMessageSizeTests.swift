import Testing
import ZeroMQ

@Suite("maxMessageSize")
struct MaxMessageSizeTests {
    @Test("over tcp an oversized message is dropped, the peer reconnects and later messages arrive")
    func tcpDropsOversized() throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        let push = try openSocket(context, .push)
        defer { push.close(); pull.close() }
        try pull.setOption(.maxMessageSize, 1024)
        try push.connect(try bindReal(pull, "tcp://127.0.0.1:*"))

        let atLimit = [UInt8](repeating: 1, count: 1024)
        #expect(try push.send(atLimit))
        #expect(try pull.receive() == atLimit)
        #expect(try pull.getOption(.maxMessageSize) == 1024)

        try pull.setOption(.receiveTimeout, 100)

        #expect(try push.send([UInt8](repeating: 2, count: 1025)))
        // libzmq drops the connection on the oversized message; anything sent right behind it
        // on that connection is lost too. Keep sending small messages until the PUSH socket has
        // reconnected and one gets through.
        var received: [[UInt8]] = []
        for attempt in 0..<100 {
            _ = try push.send(bytes("small-\(attempt)"), dontWait: true)
            if let frame = try pull.receive() {
                received.append(frame)
                break
            }
        }
        let first = try #require(received.first, "no small message arrived after the oversized one")
        #expect(text(first).hasPrefix("small-"))
        // The connection is healthy again: a new message arrives after what is still queued.
        #expect(try push.send(bytes("last")))
        var rest: [String] = []
        while let frame = try pull.receive() {
            #expect(frame.count <= 1024)
            rest.append(text(frame))
            if text(frame) == "last" { break }
        }
        #expect(rest.last == "last")
        #expect(rest.allSatisfy { $0.hasPrefix("small-") || $0 == "last" })
    }

    @Test("over inproc the limit is not enforced (libzmq checks it in the wire decoder only)")
    func inprocIgnoresLimit() throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        let push = try openSocket(context, .push)
        defer { push.close(); pull.close() }
        try pull.setOption(.maxMessageSize, 1024)
        try push.connect(try bindReal(pull, "inproc://max-message-size"))

        let oversized = [UInt8](repeating: 3, count: 4096)
        #expect(try push.send(oversized))
        #expect(try push.send(bytes("small")))
        #expect(try pull.receive() == oversized)
        #expect(try pull.receive() == bytes("small"))
    }

    @Test("receiveMultipart(keepingAtMost:) keeps the first bytes of each frame and reports full sizes")
    func truncatingReceive() throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        let push = try openSocket(context, .push)
        defer { push.close(); pull.close() }
        try push.connect(try bindReal(pull, "tcp://127.0.0.1:*"))
        let big = [UInt8](repeating: 7, count: 100_000)
        #expect(try push.send([bytes("head"), big]))
        let message = try #require(try pull.receiveMultipart(keepingAtMost: 10))
        #expect(message.frames == [bytes("head"), [UInt8](repeating: 7, count: 10)])
        #expect(message.sizes == [4, 100_000])
        #expect(!message.isTruncated(0))
        #expect(message.isTruncated(1))
    }

    @Test("receiveFirstFrame keeps the first bytes of the first frame, its full size and the frame count")
    func firstFrameReceive() throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        let push = try openSocket(context, .push)
        defer { push.close(); pull.close() }
        try push.connect(try bindReal(pull, "tcp://127.0.0.1:*"))
        let big = [UInt8](repeating: 7, count: 100_000)
        #expect(try push.send([big, bytes("second"), bytes("third")]))
        #expect(try push.send(bytes("alone")))
        let first = try #require(try pull.receiveFirstFrame(keepingAtMost: 10))
        #expect(first.bytes == [UInt8](repeating: 7, count: 10))
        #expect(first.size == 100_000)
        #expect(first.frameCount == 3)
        #expect(first.second.isEmpty, "the second frame is kept only when asked for")
        // The further frames were taken with the message: the next message is the next one.
        let alone = try #require(try pull.receiveFirstFrame(keepingAtMost: 10))
        #expect(alone.bytes == bytes("alone"))
        #expect(alone.size == 5)
        #expect(alone.frameCount == 1)
        #expect(try pull.receiveFirstFrame(dontWait: true, keepingAtMost: 10) == nil)

        // Asked for, the first bytes of the second frame come too (and only of the second).
        #expect(try push.send([bytes("body"), bytes("second frame"), bytes("third")]))
        #expect(try push.send(bytes("one")))
        let two = try #require(try pull.receiveFirstFrame(keepingAtMost: 10, keepingSecondAtMost: 6))
        #expect(two.bytes == bytes("body"))
        #expect(two.second == bytes("second"))
        #expect(two.frameCount == 3)
        let one = try #require(try pull.receiveFirstFrame(keepingAtMost: 10, keepingSecondAtMost: 6))
        #expect(one.second.isEmpty && one.frameCount == 1)
    }
}
