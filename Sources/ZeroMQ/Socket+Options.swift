import CZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Socket {
    /// Sets a C `int` option; values outside `Int32` throw `EINVAL`.
    public func setOption(_ option: SocketOption<Int>, _ value: Int) throws(ZeroMQError) {
        guard let int32 = Int32(exactly: value) else {
            throw ZeroMQError(
                errno: EINVAL, operation: "setsockopt \(option.name) \(value)", message: "value out of range")
        }
        try setRaw(option.code, name: option.name, int32)
    }

    /// Sets an `int64_t` option.
    public func setOption(_ option: SocketOption<Int64>, _ value: Int64) throws(ZeroMQError) {
        try setRaw(option.code, name: option.name, value)
    }

    /// Sets a boolean option (a C `int` of 0 or 1).
    public func setOption(_ option: SocketOption<Bool>, _ value: Bool) throws(ZeroMQError) {
        try setRaw(option.code, name: option.name, Int32(value ? 1 : 0))
    }

    /// Sets a binary option.
    public func setOption(_ option: SocketOption<[UInt8]>, _ value: [UInt8]) throws(ZeroMQError) {
        let handle = try openHandle("setsockopt \(option.name)")
        let rc = value.withUnsafeBytes { zmq_setsockopt(handle, option.code, $0.baseAddress, $0.count) }
        guard rc == 0 else { throw ZeroMQError.fromErrno(operation: "setsockopt \(option.name)") }
    }

    /// Reads a C `int` option.
    public func getOption(_ option: SocketOption<Int>) throws(ZeroMQError) -> Int {
        Int(try getRaw(option, as: Int32.self))
    }

    /// Reads an `int64_t` option.
    public func getOption(_ option: SocketOption<Int64>) throws(ZeroMQError) -> Int64 {
        try getRaw(option, as: Int64.self)
    }

    /// Reads a boolean option; write-only ones such as `routerMandatory` throw `EINVAL`.
    public func getOption(_ option: SocketOption<Bool>) throws(ZeroMQError) -> Bool {
        try getRaw(option, as: Int32.self) != 0
    }

    /// Reads a binary option.
    public func getOption(_ option: SocketOption<[UInt8]>) throws(ZeroMQError) -> [UInt8] {
        let handle = try openHandle("getsockopt \(option.name)")
        var buffer = [UInt8](repeating: 0, count: 256)
        var size = buffer.count
        let rc = buffer.withUnsafeMutableBytes { zmq_getsockopt(handle, option.code, $0.baseAddress, &size) }
        guard rc == 0 else { throw ZeroMQError.fromErrno(operation: "getsockopt \(option.name)") }
        return Array(buffer.prefix(size))
    }

    /// Receives messages whose first frame starts with `prefix` (SUB only; empty means everything).
    public func subscribe(_ prefix: [UInt8]) throws(ZeroMQError) {
        try setBytes(ZMQ_SUBSCRIBE, operation: "subscribe", prefix)
    }

    /// Receives messages whose first frame starts with the UTF-8 bytes of `prefix` (SUB only).
    public func subscribe(_ prefix: String) throws(ZeroMQError) {
        try subscribe(Array(prefix.utf8))
    }

    /// Removes one earlier `subscribe` of exactly `prefix` (SUB only).
    public func unsubscribe(_ prefix: [UInt8]) throws(ZeroMQError) {
        try setBytes(ZMQ_UNSUBSCRIBE, operation: "unsubscribe", prefix)
    }

    /// Removes one earlier `subscribe` of exactly the UTF-8 bytes of `prefix` (SUB only).
    public func unsubscribe(_ prefix: String) throws(ZeroMQError) {
        try unsubscribe(Array(prefix.utf8))
    }

    /// True when the frame last received by `receive` is followed by more frames of the same message (`ZMQ_RCVMORE`).
    public var hasMore: Bool {
        get throws(ZeroMQError) {
            try getRaw(SocketOption<Bool>(code: ZMQ_RCVMORE, name: "ZMQ_RCVMORE"), as: Int32.self) != 0
        }
    }

    /// What the socket can do now without blocking (`ZMQ_EVENTS`).
    public var events: PollEvents {
        get throws(ZeroMQError) {
            let bits = try getRaw(SocketOption<Int>(code: ZMQ_EVENTS, name: "ZMQ_EVENTS"), as: Int32.self)
            return PollEvents(rawValue: Int16(truncatingIfNeeded: bits))
        }
    }

    /// `zmq_setsockopt` with a fixed-size value.
    private func setRaw<T: FixedWidthInteger>(_ code: Int32, name: String, _ value: T) throws(ZeroMQError) {
        let handle = try openHandle("setsockopt \(name)")
        var value = value
        guard zmq_setsockopt(handle, code, &value, MemoryLayout<T>.size) == 0 else {
            throw ZeroMQError.fromErrno(operation: "setsockopt \(name)")
        }
    }

    /// `zmq_setsockopt` with bytes, for options whose errors read better as the action, e.g. `subscribe`.
    private func setBytes(_ code: Int32, operation: String, _ bytes: [UInt8]) throws(ZeroMQError) {
        let handle = try openHandle(operation)
        let rc = bytes.withUnsafeBytes { zmq_setsockopt(handle, code, $0.baseAddress, $0.count) }
        guard rc == 0 else { throw ZeroMQError.fromErrno(operation: operation) }
    }

    /// `zmq_getsockopt` of a fixed-size value; write-only options throw `EINVAL` without asking libzmq.
    private func getRaw<V, T: FixedWidthInteger>(_ option: SocketOption<V>, as type: T.Type) throws(ZeroMQError) -> T {
        let operation = "getsockopt \(option.name)"
        let handle = try openHandle(operation)
        guard !option.isWriteOnly else {
            throw ZeroMQError(errno: EINVAL, operation: operation, message: "option is write-only")
        }
        var value: T = 0
        var size = MemoryLayout<T>.size
        guard zmq_getsockopt(handle, option.code, &value, &size) == 0 else {
            throw ZeroMQError.fromErrno(operation: operation)
        }
        return value
    }
}
