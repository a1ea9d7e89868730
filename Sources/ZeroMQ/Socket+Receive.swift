import CZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Socket {
    /// Receives one whole message, all of its frames in order.
    ///
    /// A receive interrupted by a signal (`EINTR`) is retried; with `receiveTimeout` set, the
    /// timeout starts again after the retry. A context shutdown ends the wait with `ETERM`.
    ///
    /// - Returns: the frames, or nil when nothing arrived: `dontWait` and no message is waiting,
    ///   or `receiveTimeout` expired.
    public func receiveMultipart(dontWait: Bool = false) throws(ZeroMQError) -> [[UInt8]]? {
        let handle = try openHandle("receive")
        guard let first = try receiveFrame(handle: handle, dontWait: dontWait) else { return nil }
        var frames = [first.bytes]
        var more = first.more
        while more {
            // libzmq delivers a message's frames together, so the rest are already here.
            guard let next = try receiveFrame(handle: handle, dontWait: dontWait) else {
                throw ZeroMQError(errno: EAGAIN, operation: "receive frame \(frames.count + 1)")
            }
            frames.append(next.bytes)
            more = next.more
        }
        return frames
    }

    /// Receives one whole message like `receiveMultipart(dontWait:)`, with the value of the
    /// metadata `property` of its frames (`zmq_msg_gets`; the first frame that has it: a
    /// ROUTER's routing-id frame has none), e.g. "User-Id" (what the ZAP handler named the
    /// peer) or "Peer-Address"; nil when the connection has no such property.
    public func receiveMultipart(
        property: String, dontWait: Bool = false
    ) throws(ZeroMQError) -> (frames: [[UInt8]], property: String?)? {
        try receiveMultipart(dontWait: dontWait, keepingAtMost: .max, property: property).map {
            ($0.frames, $0.property)
        }
    }

    /// Receives one whole message like `receiveMultipart(dontWait:)`, but copies at most
    /// `limit` bytes of each frame (the rest is discarded by libzmq); the full sizes come
    /// with it, and the metadata `property` when asked for (see `receiveMultipart(property:dontWait:)`).
    /// For a reader that refuses oversized messages without holding them.
    public func receiveMultipart(
        dontWait: Bool = false, keepingAtMost limit: Int, property: String? = nil
    ) throws(ZeroMQError) -> ReceivedMessage? {
        let handle = try openHandle("receive")
        guard let first = try receiveFrame(handle: handle, dontWait: dontWait, keepingAtMost: limit, property: property)
        else { return nil }
        var message = ReceivedMessage(frames: [first.bytes], sizes: [first.size], property: first.property)
        var more = first.more
        while more {
            guard
                let next = try receiveFrame(
                    handle: handle, dontWait: dontWait, keepingAtMost: limit,
                    property: message.property == nil ? property : nil)
            else {
                throw ZeroMQError(errno: EAGAIN, operation: "receive frame \(message.frames.count + 1)")
            }
            message.frames.append(next.bytes)
            message.sizes.append(next.size)
            message.property = message.property ?? next.property
            more = next.more
        }
        return message
    }

    /// Receives one whole message but keeps only its first frame (at most `limit` bytes of
    /// it): for a reader that takes one-frame messages and refuses others by their frame count.
    /// The further frames are received and dropped without being copied. Nil when nothing
    /// arrived (with `dontWait`).
    ///
    /// It makes one array per message, where `receiveMultipart` makes three (the frames, the
    /// frame, the sizes). With `secondLimit` above 0, at most that many bytes of the second
    /// frame are kept too (`FirstFrame.second`), for a reader that takes a small trailer.
    public func receiveFirstFrame(
        dontWait: Bool = false, keepingAtMost limit: Int, property: String? = nil,
        keepingSecondAtMost secondLimit: Int = 0
    ) throws(ZeroMQError) -> FirstFrame? {
        let handle = try openHandle("receive")
        guard let first = try receiveFrame(handle: handle, dontWait: dontWait, keepingAtMost: limit, property: property)
        else { return nil }
        var frame = FirstFrame(bytes: first.bytes, size: first.size, frameCount: 1, property: first.property)
        var more = first.more
        while more {
            guard
                let next = try receiveFrame(
                    handle: handle, dontWait: dontWait, keepingAtMost: frame.frameCount == 1 ? secondLimit : 0,
                    property: frame.property == nil ? property : nil)
            else {
                throw ZeroMQError(errno: EAGAIN, operation: "receive frame \(frame.frameCount + 1)")
            }
            if frame.frameCount == 1 { frame.second = next.bytes }
            frame.frameCount += 1
            frame.property = frame.property ?? next.property
            more = next.more
        }
        return frame
    }

    /// Receives one frame; `hasMore` then tells whether the message has further frames.
    ///
    /// Same retry and result as `receiveMultipart(dontWait:)`: nil when nothing arrived.
    public func receive(dontWait: Bool = false) throws(ZeroMQError) -> [UInt8]? {
        let handle = try openHandle("receive")
        return try receiveFrame(handle: handle, dontWait: dontWait)?.bytes
    }

    /// `zmq_msg_recv` into the socket's reusable message, copied out once (at most `limit`
    /// bytes of it); nil on `EAGAIN`.
    private func receiveFrame(
        handle: UnsafeMutableRawPointer, dontWait: Bool, keepingAtMost limit: Int = .max, property: String? = nil
    ) throws(ZeroMQError) -> (bytes: [UInt8], size: Int, more: Bool, property: String?)? {
        let flags = dontWait ? ZMQ_DONTWAIT : 0
        zmq_msg_init(message)
        defer { zmq_msg_close(message) }
        while zmq_msg_recv(message, handle, flags) < 0 {
            let error = ZeroMQError.fromErrno(operation: "receive")
            if error.isInterrupted { continue }
            if error.isWouldBlock { return nil }
            throw error
        }
        let size = zmq_msg_size(message)
        let kept = min(size, max(limit, 0))
        // An empty frame (a ROUTER's delimiter) must not go through unsafeUninitializedCapacity:
        // with capacity 0 it writes the count into the shared empty-array storage, a data race
        // between threads that ThreadSanitizer reports.
        let bytes =
            kept == 0
            ? []
            : [UInt8](unsafeUninitializedCapacity: kept) { buffer, count in
                if let data = zmq_msg_data(message) {
                    UnsafeMutableRawBufferPointer(buffer).copyMemory(
                        from: UnsafeRawBufferPointer(start: data, count: kept))
                }
                count = kept
            }
        var value: String?
        if let property, let text = zmq_msg_gets(message, property) { value = String(cString: text) }
        return (bytes, size, zmq_msg_more(message) != 0, value)
    }
}
