import CZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Socket {
    /// Sends one message made of `frames` (a multipart message when there are several).
    ///
    /// Each frame is copied once, by `zmq_send`, into libzmq's queue. libzmq delivers the frames
    /// together or not at all. A send interrupted by a signal (`EINTR`) is retried.
    ///
    /// - Returns: false, with nothing queued, when the message cannot be queued now: `dontWait`
    ///   and the socket would block (no peer, or high-water mark reached), or `sendTimeout` expired.
    /// - Throws: `ZeroMQError` for anything else, e.g. `EHOSTUNREACH` from a ROUTER with
    ///   `routerMandatory` and an unknown routing id, or `EFSM` from a REQ out of turn.
    ///   An empty `frames` throws `EINVAL`: a message has at least one frame.
    @discardableResult
    public func send(_ frames: [[UInt8]], dontWait: Bool = false) throws(ZeroMQError) -> Bool {
        guard !frames.isEmpty else {
            throw ZeroMQError(errno: EINVAL, operation: "send", message: "a message needs at least one frame")
        }
        let handle = try openHandle("send")
        let last = frames.count - 1
        for index in frames.indices {
            let flags = (index < last ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
            if try !sendFrame(frames[index], handle: handle, flags: flags) {
                // libzmq accepts the remaining frames once it accepted the first, so this
                // only happens before anything was queued.
                guard index == 0 else {
                    throw ZeroMQError(errno: EAGAIN, operation: "send frame \(index + 1) of \(frames.count)")
                }
                return false
            }
        }
        return true
    }

    /// Sends one frame; with `more` the next send continues the same multipart message.
    ///
    /// Same cost, retry and result as `send(_ frames:dontWait:)`: false when the frame could not
    /// be queued without blocking (`dontWait`) or before `sendTimeout`.
    @discardableResult
    public func send(_ bytes: [UInt8], more: Bool = false, dontWait: Bool = false) throws(ZeroMQError) -> Bool {
        let handle = try openHandle("send")
        let flags = (more ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
        return try sendFrame(bytes, handle: handle, flags: flags)
    }

    /// `zmq_send` of one frame straight from the array's storage, retried on `EINTR`; false on `EAGAIN`.
    private func sendFrame(_ bytes: [UInt8], handle: UnsafeMutableRawPointer, flags: Int32) throws(ZeroMQError) -> Bool
    {
        while true {
            let rc = bytes.withUnsafeBytes { zmq_send(handle, $0.baseAddress, $0.count, flags) }
            if rc >= 0 { return true }
            let error = ZeroMQError.fromErrno(operation: "send")
            if error.isInterrupted { continue }
            if error.isWouldBlock { return false }
            throw error
        }
    }
}
