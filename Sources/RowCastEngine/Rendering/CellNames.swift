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

    private var recent: [String] = []
    private var shared: [String: String] = [:]

    /// No names yet.
    public init() {}

    /// The shared name whose UTF-8 is `bytes` (which must be valid UTF-8).
    public mutating func name(_ bytes: UnsafeRawBufferPointer) -> String {
        if let found = recent.first(where: { Self.utf8(of: $0, is: bytes) }) { return found }
        return keep(String(decoding: bytes, as: UTF8.self))
    }

    /// The shared copy of `name` (kept when there is room).
    public mutating func name(_ name: String) -> String {
        if let found = recent.first(where: { $0 == name }) { return found }
        return keep(name)
    }

    /// `name`, not among the recent names, kept among them or the hashed ones while there is
    /// room; the copy kept before when the hashed ones have it.
    private mutating func keep(_ name: String) -> String {
        if recent.count < Self.recentLimit {
            recent.append(name)
            return name
        }
        if let found = shared[name] { return found }
        if shared.count < Self.sharedLimit { shared[name] = name }
        return name
    }

    /// Whether `name`'s UTF-8 is `bytes`, compared in place.
    private static func utf8(of name: String, is bytes: UnsafeRawBufferPointer) -> Bool {
        let utf8 = name.utf8
        guard utf8.count == bytes.count else { return false }
        guard !bytes.isEmpty else { return true }
        return utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
            ?? utf8.elementsEqual(bytes)
    }
}

@available(*, unavailable)
extension CellNames: Sendable {}
