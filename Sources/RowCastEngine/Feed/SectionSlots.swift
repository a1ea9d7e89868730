/// The distinct sections one batch's rows were or are in, each given a slot (0, 1, 2, … in the
/// order first seen), so that the diff looks each section up once per batch instead of once per
/// row. A batch touches few sections: up to `linearLimit` they are found by comparing ids (two
/// words each for the short ids sections usually have), past it through a table.
struct SectionSlots {
    /// Each slot's section id, by slot.
    private(set) var ids: [String] = []
    /// Slots by section id, filled only once there are more than `linearLimit` sections.
    private var slotsByID: [String: Int] = [:]

    /// How many sections are found by comparison before the table takes over.
    static let linearLimit = 8

    /// The slot of section `id`, a new one when the section was not seen before.
    mutating func slot(of id: String) -> Int {
        if slotsByID.isEmpty {
            for slot in ids.indices where ids[slot] == id { return slot }
            ids.append(id)
            if ids.count > Self.linearLimit {
                for (slot, seen) in ids.enumerated() { slotsByID[seen] = slot }
            }
            return ids.count - 1
        }
        if let slot = slotsByID[id] { return slot }
        slotsByID[id] = ids.count
        ids.append(id)
        return ids.count - 1
    }
}
