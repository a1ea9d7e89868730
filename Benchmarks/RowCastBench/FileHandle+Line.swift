import Foundation

extension FileHandle {
    /// The bytes up to the first newline (without it), or to the end of the stream.
    func availableLine() -> [UInt8] {
        var line: [UInt8] = []
        while let byte = try? read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
            line.append(first)
        }
        return line
    }
}
