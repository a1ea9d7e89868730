import Testing
import ZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The two transports every round-trip test runs over: inproc and tcp on a wildcard loopback port.
let transports = ["inproc://rowcast-test", "tcp://127.0.0.1:*"]

/// Opens a socket that cannot hang a test: linger 0 and bounded blocking receive and send.
func openSocket(_ context: Context, _ type: SocketType, timeoutMilliseconds: Int = 5_000) throws -> Socket {
    let socket = try Socket(context: context, type: type)
    try socket.setOption(.linger, 0)
    try socket.setOption(.receiveTimeout, timeoutMilliseconds)
    try socket.setOption(.sendTimeout, timeoutMilliseconds)
    return socket
}

/// Binds `socket` to `endpoint` and returns the real endpoint (the port chosen for a `*`).
func bindReal(_ socket: Socket, _ endpoint: String) throws -> String {
    try socket.bind(endpoint)
    return try socket.lastEndpoint
}

/// The UTF-8 bytes of `text`.
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A frame as text, for readable expectations.
func text(_ frame: [UInt8]) -> String { String(decoding: frame, as: UTF8.self) }
