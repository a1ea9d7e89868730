import Foundation

/// Reads a child's pipe on a thread of its own until end of file, then closes it.
///
/// A blocking reader rather than `readabilityHandler`: that handler's dispatch source cannot be
/// closed safely (its cancellation may act on a descriptor number already reused), and a pipe
/// left open for the rest of the test run adds up to hundreds of descriptors.
enum PipeReader {
    /// Starts the thread; `deliver` gets each chunk as it arrives.
    static func start(_ handle: FileHandle, name: String, deliver: @escaping @Sendable (Data) -> Void) {
        let descriptor = handle.fileDescriptor
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    deliver(Data(buffer[0..<count]))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            try? handle.close()
        }
        thread.name = name
        thread.start()
    }
}
