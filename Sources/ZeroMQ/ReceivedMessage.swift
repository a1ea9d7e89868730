/// A message read with `Socket.receiveMultipart(dontWait:keepingAtMost:)`: the first bytes of
/// each frame, and each frame's full size, so an oversized frame costs no more memory than the
/// bytes kept of it.
public struct ReceivedMessage: Sendable {
    /// The frames in order, each cut to the number of bytes asked for.
    public var frames: [[UInt8]]
    /// The full size of each frame in bytes, as sent.
    public var sizes: [Int]
    /// The metadata property asked for, when the connection has it (e.g. "User-Id").
    public var property: String?

    /// A message from its parts.
    public init(frames: [[UInt8]], sizes: [Int], property: String? = nil) {
        self.frames = frames
        self.sizes = sizes
        self.property = property
    }

    /// Whether frame `index` was cut (it was longer than the bytes kept of it).
    public func isTruncated(_ index: Int) -> Bool {
        sizes[index] > frames[index].count
    }
}

/// The first frame of a message read with `Socket.receiveFirstFrame(dontWait:keepingAtMost:property:)`.
public struct FirstFrame: Sendable {
    /// The first bytes of the frame (all of it when it fits the limit).
    public var bytes: [UInt8]
    /// The frame's full size in bytes, as sent.
    public var size: Int
    /// How many frames the message had.
    public var frameCount: Int
    /// The first bytes of the second frame, when asked for (`keepingSecondAtMost`); empty
    /// otherwise.
    public var second: [UInt8] = []
    /// The metadata property asked for, when the connection has it (e.g. "User-Id").
    public var property: String?

    /// A first frame from its parts: for a reader that takes a message another thread
    /// wrapped in frames of its own.
    public init(bytes: [UInt8], size: Int, frameCount: Int, second: [UInt8] = [], property: String? = nil) {
        self.bytes = bytes
        self.size = size
        self.frameCount = frameCount
        self.second = second
        self.property = property
    }
}
