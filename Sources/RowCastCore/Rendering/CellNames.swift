#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The cell names rows have used, so that a row's cell is one shared `String` (not a copy per
/// row) and a name seen before is found from the plugin output's bytes without making a new
/// `String` first (a name over 15 bytes, such as `ProductImageCell`, is a heap allocation, a
/// hash and a free per row otherwise).
///
/// A feed uses a handful of cell names: the first `recentLimit` are compared byte for byte,
/// the rest (up to `sharedLimit`) are found by hashing, and past that names are not kept.
///
/// Not `Sendable`: the engine's loop thread alone uses it.
public struct CellNames {
    /// How many names are compared byte for byte before hashing.
    static let recentLimit = 16
    /// How many names are shared at most.
    static let sharedLimit = 10_000

    private var recent: [(bytes: [UInt8], name: String)] = []
    private var shared: [String: String] = [:]

    /// No names yet.
    public init() {}

    /// The shared name whose UTF-8 is `bytes` (which must be valid UTF-8).
    public mutating func name(_ bytes: UnsafeRawBufferPointer) -> String {
        for entry in recent where entry.bytes.count == bytes.count {
            let same = bytes.isEmpty || entry.bytes.withUnsafeBytes { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
            if same { return entry.name }
        }
        return name(String(decoding: bytes, as: UTF8.self))
    }

    /// The shared copy of `name` (kept when there is room).
    public mutating func name(_ name: String) -> String {
        if let found = recent.first(where: { $0.name == name }) { return found.name }
        if recent.count < Self.recentLimit {
            recent.append((Array(name.utf8), name))
            return name
        }
        if let found = shared[name] { return found }
        if shared.count < Self.sharedLimit { shared[name] = name }
        return name
    }
}

@available(*, unavailable)
extension CellNames: Sendable {}
