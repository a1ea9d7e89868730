@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import RowCastTesting
import Testing

/// The diff's slots for a batch's sections: one per distinct id, numbered in the order first
/// seen, the same whether found by comparison or through the table past `linearLimit`.
struct SectionSlotsTests {
    @Test(
        "each distinct section gets the next slot, found again by comparison and by table",
        arguments: [3, SectionSlots.linearLimit, SectionSlots.linearLimit + 1, 40])
    func slotsInFirstSeenOrder(distinct: Int) {
        var random = SplitMix64(state: UInt64(distinct))
        var slots = SectionSlots()
        var expected: [String: Int] = [:]
        for _ in 0..<500 {
            let id = "section-\(Int.random(in: 0..<distinct, using: &random))"
            let slot = slots.slot(of: id)
            if let known = expected[id] {
                #expect(slot == known)
            } else {
                #expect(slot == expected.count)
                expected[id] = slot
            }
        }
        #expect(slots.ids.count == expected.count)
        for (id, slot) in expected { #expect(slots.ids[slot] == id) }
    }
}
