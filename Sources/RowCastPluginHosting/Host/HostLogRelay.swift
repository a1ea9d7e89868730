import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads what a plugin host writes to its standard output and error and logs it, one line a
/// log record with the plugin file's name, so a plugin's `printf` never reaches the channel.
///
/// Not `Sendable`: it owns the pipe's read end.
final class HostLogRelay {
    /// The longest line logged; the rest of a longer line is dropped.
    static let maximumLineLength = 1024
    /// The most lines logged per drain; the rest are counted and dropped.
    static let maximumLinesPerDrain = 100

    /// The pipe's read end (non-blocking).
    let descriptor: Int32
    private let plugin: String
    private let logger: Logger
    private var partial: [UInt8] = []

    init(descriptor: Int32, plugin: String, logger: Logger) {
        self.descriptor = descriptor
        self.plugin = plugin
        self.logger = logger
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        drain()
        if !partial.isEmpty { emit(partial) }
        close(descriptor)
    }

    /// Logs every whole line waiting in the pipe.
    func drain() {
        var chunk = [UInt8](repeating: 0, count: 1 << 14)
        var logged = 0
        var dropped = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            for byte in chunk[0..<count] {
                if byte == UInt8(ascii: "\n") {
                    if logged < Self.maximumLinesPerDrain { emit(partial); logged += 1 } else { dropped += 1 }
                    partial.removeAll(keepingCapacity: true)
                } else if partial.count < Self.maximumLineLength {
                    partial.append(byte)
                }
            }
        }
        if dropped > 0 {
            logger.notice("plugin output: \(dropped) more lines dropped", metadata: ["plugin": "\(plugin)"])
        }
    }

    private func emit(_ line: [UInt8]) {
        logger.notice("plugin output: \(String(decoding: line, as: UTF8.self))", metadata: ["plugin": "\(plugin)"])
    }
}

@available(*, unavailable)
extension HostLogRelay: Sendable {}
