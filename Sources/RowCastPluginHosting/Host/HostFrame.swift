#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The framing of the private channel between rowcastd and a plugin host: each frame is a
/// 4-byte little-endian length, then that many bytes; the first byte of a frame is its tag.
public enum HostFrame {
    /// The largest frame either side accepts; a longer length is a broken channel.
    public static let maximumLength = 1 << 30

    /// Frame tags.
    public enum Tag: UInt8, Sendable {
        /// rowcastd → host: a batch of calls (``HostCall``).
        case batch = 0x42
        /// rowcastd → host: finish and exit.
        case quit = 0x51
        /// host → rowcastd: the plugin loaded; JSON ``HostHello`` follows.
        case hello = 0x48
        /// host → rowcastd: the plugin was refused; JSON `{"code","reason"}` follows.
        case refused = 0x52
        /// host → rowcastd: the results of the next calls of a batch (a chunk), in call order.
        case results = 0x53
    }

    /// Writes one whole frame to `descriptor` (blocking); false when the peer is gone or takes
    /// nothing for `stallMilliseconds` (a host that stopped reading). Never raises SIGPIPE.
    ///
    /// The length and the payload go out together in one `sendmsg` (two I/O vectors), so the
    /// payload is never copied into a frame first; a partial send resumes where it stopped.
    public static func send(_ payload: [UInt8], on descriptor: Int32, stallMilliseconds: Int = 5000) -> Bool {
        let header = UInt32(payload.count).littleEndian
        let total = 4 + payload.count
        var sent = 0
        var progress = ContinuousClock.now
        while sent < total {
            let result = withUnsafeBytes(of: header) { head in
                payload.withUnsafeBytes { body in
                    sendVectors(head: head, body: body, from: sent, on: descriptor)
                }
            }
            if result > 0 {
                sent += result
                progress = .now
                continue
            }
            if result < 0, errno == EINTR { continue }
            // Nothing taken: wait for room, as long as the peer takes something now and then.
            guard result == 0 || errno == EAGAIN || errno == EWOULDBLOCK else { return false }
            if ContinuousClock.now - progress > .milliseconds(stallMilliseconds) { return false }
            var pending = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            _ = poll(&pending, 1, 100)
        }
        return true
    }

    /// One `sendmsg` of what is left of `head` then `body`, `offset` bytes into the two.
    private static func sendVectors(
        head: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, from offset: Int, on descriptor: Int32
    ) -> Int {
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2) { vectors in
            var count = 0
            if offset < head.count {
                vectors[count] = iovec(
                    iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress! + offset),
                    iov_len: head.count - offset)
                count += 1
            }
            let bodyOffset = max(0, offset - head.count)
            if bodyOffset < body.count {
                vectors[count] = iovec(
                    iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress! + bodyOffset),
                    iov_len: body.count - bodyOffset)
                count += 1
            }
            var message = msghdr()
            message.msg_iov = vectors.baseAddress
            message.msg_iovlen = numericCast(count)
            return Glibc.sendmsg(descriptor, &message, Int32(MSG_NOSIGNAL))
        }
    }
}

/// Collects bytes read from the channel and cuts them into frames.
///
/// Bytes are read straight into one kept buffer, and a frame is handed out as a slice of it
/// (``nextFrame()``): no copy between the socket and the decoder. The unread bytes are moved to
/// the front only when the buffer has no room left, and the buffer grows (doubling) only for a
/// frame longer than it; one grown past `keptSize` is let go once it is empty.
public struct HostFrameReader {
    /// The bytes read: those in `start..<end` are not handed out yet; the rest is room.
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0

    /// The buffer's size at first, and again after a long frame.
    static let initialSize = 1 << 16
    /// The largest buffer kept once it is empty.
    static let keptSize = 1 << 20

    /// An empty reader.
    public init() {
        buffer = [UInt8](repeating: 0, count: Self.initialSize)
    }

    /// Reads what `descriptor` has (once); `false` on end of file or a read error. A slice from
    /// ``nextFrame()`` should be let go before: reading into the buffer while one is held copies it.
    public mutating func fill(from descriptor: Int32) -> Bool {
        makeRoom()
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + end, $0.count - end) }
            if count > 0 {
                end += count
                return true
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return true }
            return false
        }
    }

    /// Makes room to read into: starts over when everything was handed out, moves the unread
    /// bytes to the front when the buffer is full, doubles it when they fill it.
    private mutating func makeRoom() {
        if start == end {
            start = 0
            end = 0
            if buffer.count > Self.keptSize { buffer = [UInt8](repeating: 0, count: Self.initialSize) }
            return
        }
        guard end == buffer.count else { return }
        if start > 0 {
            let (from, count) = (start, end - start)
            buffer.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: $0.baseAddress! + from, byteCount: count) }
            start = 0
            end = count
        } else {
            buffer.append(contentsOf: repeatElement(0, count: buffer.count))
        }
    }

    /// The next whole frame, if one has arrived, as a copy of its own; throws when the length
    /// is impossible.
    public mutating func next() throws(HostChannelError) -> [UInt8]? {
        try nextFrame().map(Array.init)
    }

    /// The next whole frame, if one has arrived, where it is in the buffer (its indices are
    /// the buffer's); throws when the length is impossible.
    public mutating func nextFrame() throws(HostChannelError) -> ArraySlice<UInt8>? {
        guard end - start >= 4 else { return nil }
        var header = HostWireReader(buffer[start..<(start + 4)])
        let length = Int(try header.uint32())
        guard length <= HostFrame.maximumLength, length > 0 else {
            throw HostChannelError("a frame of \(length) bytes")
        }
        guard end - start - 4 >= length else { return nil }
        let frame = buffer[(start + 4)..<(start + 4 + length)]
        start += 4 + length
        return frame
    }
}

/// The channel carried something that is not a frame of the host protocol.
public struct HostChannelError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public let description: String
    /// An error saying what was wrong.
    public init(_ description: String) { self.description = description }
}
