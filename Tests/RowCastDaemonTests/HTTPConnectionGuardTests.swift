import Logging
import NIOCore
import NIOEmbedded
@testable import RowCastHTTP
import Testing

/// The connection guard in a channel of its own, on an embedded event loop whose clock the test
/// moves: it answers 408 and 431 itself, ahead of any HTTP handler, passes a whole head on,
/// closes a connection over the per-address cap, and closes one whose client takes no data.
@Suite("HTTP connection guard")
struct HTTPConnectionGuardTests {
    let limits = HTTPConnectionLimits(
        headerTimeout: .seconds(1), idleTimeout: .seconds(5), writeTimeout: .seconds(2), maxConnectionsPerPeer: 1,
        maxHeadBytes: 1000)

    /// An active channel with a guard (and its limiter) in front.
    func channel(refused: Bool = false) throws -> (EmbeddedChannel, HTTPConnectionLimiter) {
        let limiter = HTTPConnectionLimiter(
            limits: limits, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            HTTPConnectionGuard(limiter: limiter, peer: "10.0.0.1", refused: refused))
        try channel.connect(to: SocketAddress(ipAddress: "10.0.0.1", port: 80)).wait()
        return (channel, limiter)
    }

    /// Everything the guard wrote, as text.
    func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let data = try channel.readOutbound(as: IOData.self) {
            if case .byteBuffer(let buffer) = data { text += String(buffer: buffer) }
        }
        return text
    }

    @Test("a head that has not arrived at the deadline is answered 408; what it sent is passed on")
    func timeout() throws {
        let (channel, _) = try channel()
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: "GET / HTTP/1.1\r\n"))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(999))
        #expect(try written(channel).isEmpty)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        let answer = try written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(answer.contains("X-Content-Type-Options: nosniff\r\n"))
        #expect(answer.contains("\"request_timeout\""))
        try channel.writeInbound(ByteBuffer(string: "Host: a\r\n\r\n"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil, "after the answer, input is dropped")
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive, "closed once the lingering is over")
    }

    @Test("a whole head is passed on and stops the deadline")
    func wholeHead() throws {
        let (channel, _) = try channel()
        try channel.writeInbound(ByteBuffer(string: "GET /feeds/a/stream HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(try channel.readInbound(as: ByteBuffer.self) != nil)
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(channel.isActive)
        #expect(try written(channel).isEmpty)
        _ = try channel.finish()
    }

    @Test("a head over the limit is answered 431 and not passed on")
    func tooLarge() throws {
        let (channel, _) = try channel()
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 2000)))
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        let answer = try written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"))
        #expect(answer.contains("larger than 1000 bytes"))
    }

    @Test("a client that takes no data for the write timeout is closed; writable again in time, it is not")
    func stalled() throws {
        let (channel, _) = try channel()
        try channel.writeInbound(ByteBuffer(string: "GET /feeds/a/stream HTTP/1.1\r\n\r\n"))
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1500))
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(channel.isActive)
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
    }

    @Test("a connection over the per-address cap is closed as soon as it is active")
    func refused() throws {
        let (channel, _) = try channel(refused: true)
        #expect(!channel.isActive)
    }

    @Test("the limiter admits an address up to the cap and frees a place on release")
    func limiter() throws {
        let (_, limiter) = try channel()
        #expect(limiter.admit("10.0.0.9"))
        #expect(!limiter.admit("10.0.0.9"))
        limiter.release("10.0.0.9")
        #expect(limiter.held(by: "10.0.0.9") == 0)
        #expect(limiter.admit("10.0.0.9"))
    }
}
