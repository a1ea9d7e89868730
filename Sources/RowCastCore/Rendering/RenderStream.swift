/// The outcomes of a list of render jobs, which may still be arriving: a renderer in other
/// processes answers in chunks, so the engine can apply the first rows of a batch while the
/// plugins render the rest.
///
/// Outcomes are asked for in job order, or close to it; asking for a later one waits for
/// those before it.
public protocol RenderStream: AnyObject {
    /// The outcome of job `index`, waiting for it if it has not arrived.
    func outcome(at index: Int) -> RenderOutcome
    /// Waits for every outcome still due, so the renderer is idle before its next jobs.
    func finish()
}

/// A stream whose outcomes are all known: what renderers that call plugins in rowcastd return.
public final class RenderedOutcomes: RenderStream {
    private let outcomes: [RenderOutcome]

    /// The stream of `outcomes`.
    public init(_ outcomes: [RenderOutcome]) { self.outcomes = outcomes }

    /// Outcome `index`.
    public func outcome(at index: Int) -> RenderOutcome { outcomes[index] }

    /// Nothing to wait for.
    public func finish() {}
}

/// A render job sent ahead of its use: where its outcome will be.
struct PrerenderedJob {
    /// The stream that answers it.
    var stream: any RenderStream
    /// Its index in that stream.
    var index: Int
    /// Its input, held so that no other array can take the address its ``JobInputIdentity``
    /// names while the job is waiting to be used.
    var input: [UInt8]
}

/// An item job's input as a dictionary key by identity: where its bytes are stored and how
/// many there are. An item's JSON is one array from decoding to rendering (the decoded request
/// and the job share it), so its lookup hashes two words instead of every byte of the item;
/// hashing the bytes twice per item was a notable share of the loop thread with plugin hosts.
/// The ``PrerenderedJob`` holds the array, so the address is not reused while it is a key.
struct JobInputIdentity: Hashable {
    /// The address of the first byte.
    var address: UInt
    /// The number of bytes.
    var count: Int

    /// The identity of `bytes`; nil when empty (every empty array shares one address).
    init?(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return nil }
        address = bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        count = bytes.count
    }
}

/// A job's input bytes as a dictionary key by content (section headers, whose input is
/// written afresh for each call), hashed in one pass over the bytes: `[UInt8]`'s own
/// hashing feeds the hasher a byte at a time, which cost a notable share of the loop's time
/// with plugin hosts (two hashes per item of every batch).
struct JobInputKey: Hashable {
    /// The input bytes.
    var bytes: [UInt8]

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
