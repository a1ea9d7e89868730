import Foundation
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The plugin-host channel's framing over a real socketpair: whole frames arrive intact however
/// the kernel splits the sends, a vanished peer is a failed send (never SIGPIPE), and the reader
/// refuses impossible lengths.
@Suite("HostFrame")
struct HostFrameTests {
    /// A connected AF_UNIX stream pair; the sending end is non-blocking with a 4 KiB send
    /// buffer, so any frame beyond a few KiB goes out in many partial `sendmsg` calls.
    private static func smallBufferPair() throws -> (sender: Int32, receiver: Int32) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw HostChannelError("socketpair: errno \(errno)")
        }
        var size: Int32 = 4096
        _ = setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) | O_NONBLOCK)
        return (pair[0], pair[1])
    }

    /// `count` bytes that differ at every offset, so a shifted or repeated run shows.
    private static func payload(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 31) ^ ($0 >> 8) ^ seed) }
    }

    @Test("frames of 1 byte to 3 MiB through a 4 KiB send buffer arrive whole and in order")
    func framesArriveWhole() throws {
        let (sender, receiver) = try Self.smallBufferPair()
        defer { close(sender) }
        let sizes = [1, 2, 3, 4, 5, 7, 4091, 4096, 4100, 65_536, 65_541, 1 << 20, 3 << 20]
        let inbox = FrameInbox()
        let reader = Thread {
            defer { close(receiver); inbox.done.signal() }
            var frames = HostFrameReader()
            var collected: [[UInt8]] = []
            defer { inbox.finish(collected) }
            while collected.count < sizes.count {
                guard frames.fill(from: receiver) else {
                    inbox.fail("the channel ended after \(collected.count) frames")
                    return
                }
                do {
                    while let frame = try frames.next() { collected.append(frame) }
                } catch {
                    inbox.fail("\(error)")
                    return
                }
            }
        }
        reader.start()
        for (index, size) in sizes.enumerated() {
            #expect(HostFrame.send(Self.payload(size, seed: index), on: sender), "frame \(index) of \(size) bytes")
        }
        #expect(inbox.done.wait(timeout: .now() + 30) == .success, "the reader did not finish within 30 s")
        let (frames, failure) = inbox.outcome()
        #expect(failure == nil)
        #expect(frames.count == sizes.count)
        for (index, frame) in frames.enumerated() where frame != Self.payload(sizes[index], seed: index) {
            let firstDifference = zip(frame, Self.payload(sizes[index], seed: index)).enumerated().first {
                $0.element.0 != $0.element.1
            }?.offset
            Issue.record(
                "frame \(index): \(frame.count) bytes, expected \(sizes[index]); first difference at \(firstDifference.map(String.init) ?? "the end")"
            )
        }
    }

    @Test(
        "frames handed out in place, split anywhere across reads, keep their bytes as the buffer fills, moves and grows"
    )
    func framesInPlace() throws {
        var pair: [Int32] = [-1, -1]
        let made = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair)
        try #require(made == 0)
        defer { close(pair[0]); close(pair[1]) }
        _ = fcntl(pair[1], F_SETFL, fcntl(pair[1], F_GETFL) | O_NONBLOCK)
        // Small frames that do not divide the 64 KiB buffer evenly (so one is cut at its end and
        // the rest moved to the front), then one longer than the buffer (so it grows), then
        // small ones again (after the grown buffer is let go).
        let sizes = Array(repeating: 1_000, count: 150) + [200_000] + Array(repeating: 333, count: 400)
        var stream: [UInt8] = []
        for (index, size) in sizes.enumerated() {
            withUnsafeBytes(of: UInt32(size).littleEndian) { stream.append(contentsOf: $0) }
            stream.append(contentsOf: Self.payload(size, seed: index))
        }
        var frames = HostFrameReader()
        var received = 0
        var offset = 0
        var cut = 1
        while received < sizes.count {
            // Writes of uneven lengths (1 byte to about 7 KiB), so headers and payloads are cut
            // at every kind of place.
            if offset < stream.count {
                let length = min(stream.count - offset, cut)
                let written = stream[offset..<(offset + length)].withUnsafeBytes {
                    write(pair[0], $0.baseAddress, length)
                }
                #expect(written == length)
                offset += length
                cut = cut * 7 % 7_919 + 1
            }
            let open = frames.fill(from: pair[1])
            #expect(open)
            while let frame = try frames.nextFrame() {
                #expect(Array(frame) == Self.payload(sizes[received], seed: received), "frame \(received)")
                received += 1
            }
        }
        #expect(offset == stream.count)
    }

    @Test("a peer that is gone fails the send without SIGPIPE")
    func closedPeer() throws {
        let (sender, receiver) = try Self.smallBufferPair()
        defer { close(sender) }
        close(receiver)
        #expect(!HostFrame.send(Self.payload(100, seed: 1), on: sender))
        #expect(!HostFrame.send(Self.payload(1 << 20, seed: 2), on: sender))
    }

    @Test(
        "a length of 0 or over the limit is a broken channel",
        arguments: [UInt32(0), UInt32(HostFrame.maximumLength + 1), UInt32.max])
    func impossibleLength(_ length: UInt32) throws {
        let (sender, receiver) = try Self.smallBufferPair()
        defer { close(sender); close(receiver) }
        var header = length.littleEndian
        #expect(withUnsafeBytes(of: &header) { write(sender, $0.baseAddress, 4) } == 4)
        var frames = HostFrameReader()
        let filled = frames.fill(from: receiver)
        #expect(filled)
        var refused = false
        do { _ = try frames.next() } catch { refused = true }
        #expect(refused, "a frame length of \(length) was accepted")
    }
}

/// What the reader thread of a frame test collected, behind a lock (`NSLock`, which
/// ThreadSanitizer understands); `done` is signalled when it stops.
private final class FrameInbox: @unchecked Sendable {  // `frames` and `failure` only under `lock`
    let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var frames: [[UInt8]] = []
    private var failure: String?

    func finish(_ collected: [[UInt8]]) { lock.withLock { frames = collected } }
    func fail(_ reason: String) { lock.withLock { failure = reason } }
    func outcome() -> ([[UInt8]], String?) { lock.withLock { (frames, failure) } }
}
