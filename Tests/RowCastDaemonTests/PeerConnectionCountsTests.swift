@testable import RowCastHTTP
import Testing

/// The per-address connection cap: each address on its own, a refused connection counts for
/// nothing, and a closed one frees its place.
@Suite("Peer connection counts")
struct PeerConnectionCountsTests {
    @Test("an address may hold the limit, not one more; others are not affected; a close frees a place")
    func cap() {
        var counts = PeerConnectionCounts(limit: 2)
        let first = (0..<4).map { _ in counts.admit("10.0.0.1") }
        #expect(first == [true, true, false, false])
        #expect(counts.held(by: "10.0.0.1") == 2)
        let other = counts.admit("10.0.0.2")
        #expect(other)
        counts.release("10.0.0.1")
        let again = (0..<2).map { _ in counts.admit("10.0.0.1") }
        #expect(again == [true, false])
    }

    @Test("an address with no connections left is forgotten, and a stray release is harmless")
    func forgets() {
        var counts = PeerConnectionCounts(limit: 64)
        _ = counts.admit("::1")
        counts.release("::1")
        counts.release("::1")
        #expect(counts.counts.isEmpty)
        #expect(counts.held(by: "::1") == 0)
    }
}
