/// An item the feed holds, with its first-arrival rank and its row (nil while no plugin
/// handles its type, or after its plugin went away).
struct StoredItem {
    /// The item as last upserted (its JSON is what the plugin gets, again on a re-render).
    var input: ItemInput
    /// When the id first arrived in the feed; ties on `sort` are broken by it.
    var arrival: UInt64
    /// The rendered row, or nil while the item waits for a plugin.
    var row: RenderedRow?

    /// The key rows are ordered by within a section.
    var orderKey: OrderKey { OrderKey(primary: input.sort ?? 0, arrival: arrival) }
}

/// Order within a list: an explicit number first, then first arrival.
struct OrderKey: Comparable, Hashable {
    /// The explicit `sort` or `order` (0 when absent).
    var primary: Double
    /// The first-arrival rank.
    var arrival: UInt64

    static func < (lhs: OrderKey, rhs: OrderKey) -> Bool {
        lhs.primary != rhs.primary ? lhs.primary < rhs.primary : lhs.arrival < rhs.arrival
    }
}
