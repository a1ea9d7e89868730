import CRowCastPlugin

/// The buffer behind the `rowcast_sink` of one plugin call: the plugin's `write` calls append
/// to it, up to a limit.
struct PluginSink {
    /// What the plugin wrote, after the `start` bytes that were there before the call.
    var bytes: [UInt8] = []
    /// Where this call's output begins in `bytes`.
    var start = 0
    /// How many bytes the plugin may write before the call fails.
    let limit: Int
    /// Whether the plugin tried to write more than `limit`.
    var overflowed = false

    /// A sink that accepts up to `limit` bytes.
    init(limit: Int) { self.limit = limit }

    /// Calls `body` with a `rowcast_sink` that appends to this buffer.
    mutating func withSink<Result>(_ body: (UnsafeMutablePointer<rowcast_sink>) -> Result) -> Result {
        withUnsafeMutablePointer(to: &self) { buffer in
            var sink = rowcast_sink(opaque: UnsafeMutableRawPointer(buffer), write: PluginSink.write)
            return body(&sink)
        }
    }

    /// The sink's `write`: copies the plugin's bytes into the buffer before returning.
    private static let write: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int) -> Void = {
        opaque, bytes, length in
        guard let opaque, let bytes, length > 0 else { return }
        let sink = opaque.assumingMemoryBound(to: PluginSink.self)
        guard !sink.pointee.overflowed, length <= sink.pointee.limit - (sink.pointee.bytes.count - sink.pointee.start)
        else {
            sink.pointee.overflowed = true
            return
        }
        sink.pointee.bytes.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: length))
    }
}
