import ZeroMQ

/// How the front of several engine loops hands an ingest message to its loop with CURVE on:
/// one frame first, the User-Id of the client's connection (its CURVE client's name, or empty
/// for an `ipc://` connection, which is not checked), then the client's frames as sent. Only
/// the front reaches a loop's `inproc://` sockets, so no client can write that first frame.
/// Without CURVE the message goes as sent.
enum FrontIngestFrames {
    /// The frames for the loop: `userID`'s frame, then `frames`.
    static func wrap(_ frames: [[UInt8]], userID: String?) -> [[UInt8]] {
        [Array((userID ?? "").utf8)] + frames
    }

    /// The client's message as a loop reads it (`Socket.receiveFirstFrame`), from `message`
    /// as the front wrapped it: its first frame, its frame count, the first `secondLimit`
    /// bytes of its second frame, and the User-Id as its property.
    static func unwrap(_ message: ReceivedMessage, secondLimit: Int) -> FirstFrame {
        let frames = message.frames
        guard frames.count > 1 else {
            return FirstFrame(bytes: [], size: 0, frameCount: 0, property: nil)
        }
        return FirstFrame(
            bytes: frames[1], size: message.sizes[1], frameCount: frames.count - 1,
            second: frames.count > 2 ? Array(frames[2].prefix(secondLimit)) : [],
            property: String(decoding: frames[0], as: UTF8.self))
    }
}
