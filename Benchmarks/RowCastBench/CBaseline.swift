import Foundation

/// The raw ZeroMQ ceiling measured by a C program against libzmq (`rowcast-zmq-baseline`,
/// built by the package next to this benchmark), so neither Swift nor our wrapper is in it.
enum CBaseline {
    /// The shapes it measures.
    enum Shape: String {
        /// PUSH → PULL.
        case oneHop = "one-hop"
        /// PUSH → PULL → PUB (topic frame) → SUB, the shape of rowcastd's path.
        case forward
    }

    /// Seconds to move `items` car messages through `shape`.
    static func seconds(_ shape: Shape, items: Int) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BenchDaemon.productsDirectory + "/rowcast-zmq-baseline")
        process.arguments = [shape.rawValue, String(items)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let seconds = text.split(separator: " ").first.flatMap({ Double($0) })
        else {
            throw BenchFailure(
                "rowcast-zmq-baseline \(shape.rawValue) failed (status \(process.terminationStatus)): \(text)")
        }
        return seconds
    }
}
