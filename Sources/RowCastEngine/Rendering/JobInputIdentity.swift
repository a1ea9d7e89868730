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
