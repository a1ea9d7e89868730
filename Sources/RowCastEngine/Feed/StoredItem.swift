/// An item the feed holds, with its first-arrival rank and its row (nil while no plugin
/// handles its type, or after its plugin went away).
///
/// A class, so that the feed's item table holds one reference per item rather than the
/// item's dozen fields: growing a table then moves a sixth of the bytes. Growth faults in
/// fresh pages, and a table's growth was the loop thread's longest stall under a steady
/// trickle. Only the owning `Feed` changes an item.
final class StoredItem {
    /// The item as last upserted (its JSON is what the plugin gets, again on a re-render).
    var input: ItemInput
    /// When the id first arrived in the feed; ties on `sort` are broken by it.
    var arrival: UInt64
    /// The rendered row, or nil while the item waits for a plugin.
    var row: RenderedRow?
    /// Whether `row` was drawn by a renderer that changed since (restored at start): it is
    /// rendered again in the background, and served meanwhile. Any new row clears it.
    var staleRow = false
    /// The feed's batch that last touched the item (``Feed``'s `batchNumber`; 0: none yet),
    /// so that the feed finds the item's entry of that batch without a lookup by id.
    var touchedIn: UInt64 = 0
    /// Where that batch keeps the item's entry (meaningful while `touchedIn` is the batch in
    /// progress).
    var touchSlot = 0
    /// The feed's changes (since a `takeChanges`) that list the item (``Feed``'s
    /// `changesNumber`; 0: none yet), so that it is listed once however often it changes.
    var dirtyIn: UInt64 = 0

    /// An item as first stored.
    init(input: ItemInput, arrival: UInt64, row: RenderedRow?) {
        self.input = input
        self.arrival = arrival
        self.row = row
    }

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

extension PersistedItem {
    /// How the durable store keeps `item`, stored under `id`.
    init(id: String, of item: StoredItem) {
        self.init(
            id: id, type: item.input.type, section: item.input.section, sort: item.input.sort, arrival: item.arrival,
            json: item.input.json, row: item.row)
    }
}
