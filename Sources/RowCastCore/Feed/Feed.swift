/// One feed's state: items by id, sections by id, first-arrival ranks, and the sequence
/// number and epoch of its history. It knows nothing of plugins or sockets: the engine renders
/// and hands it rows.
///
/// Not `Sendable`: a feed belongs to the engine that owns it, on one thread.
public final class Feed {
    /// The feed's name.
    public let name: String
    /// The seq of the last delta published (0 before the first).
    public internal(set) var seq: UInt64 = 0
    /// The name of this feed's continuous history.
    public internal(set) var epoch: String
    /// The snapshot at `seq`.
    public internal(set) var snapshot = FeedSnapshot()

    private(set) var items: [String: StoredItem] = [:]
    private(set) var sections: [String: StoredSection] = [:]
    private var nextArrival: UInt64 = 0
    /// Item types already reported as unknown on the error topic (reported once each).
    var reportedUnknownTypes: Set<String> = []
    /// Items and sections changed since the last `takeChanges`, for the durable store.
    private var dirtyItems: Set<String> = []
    private var dirtySections: Set<String> = []
    private var replacedAll = false

    /// An empty feed with a new epoch.
    init(name: String, epoch: String) {
        self.name = name
        self.epoch = epoch
    }

    /// How many items the feed holds.
    public var itemCount: Int { items.count }
    /// How many items wait for a plugin (they have no row).
    public var pendingCount: Int { items.values.reduce(0) { $1.row == nil ? $0 + 1 : $0 } }

    /// The stored item with this id.
    func item(_ id: String) -> StoredItem? { items[id] }

    /// Every stored item (any order).
    var allItems: Dictionary<String, StoredItem>.Values { items.values }

    /// Every stored section (any order).
    var allSections: Dictionary<String, StoredSection>.Values { sections.values }

    // MARK: - Mutations

    /// Inserts the item, or replaces the one with its id (keeping its first arrival).
    func upsert(_ input: ItemInput, pluginInput: [UInt8], row: RenderedRow?) {
        dirtyItems.insert(input.id)
        if var existing = items[input.id] {
            if existing.input.section != input.section {
                leaveSection(existing.input.section, id: input.id)
                joinSection(input.section, id: input.id)
            }
            existing.input = input
            existing.pluginInput = pluginInput
            existing.row = row
            items[input.id] = existing
        } else {
            joinSection(input.section, id: input.id)
            items[input.id] = StoredItem(input: input, pluginInput: pluginInput, arrival: takeArrival(), row: row)
        }
    }

    /// Replaces the row of an item (after a plugin appeared, changed or went away).
    func setRow(_ row: RenderedRow?, forItem id: String) {
        items[id]?.row = row
    }

    /// Deletes the item; false when the feed has no item with that id.
    @discardableResult
    func delete(id: String) -> Bool {
        guard let removed = items.removeValue(forKey: id) else { return false }
        dirtyItems.insert(id)
        leaveSection(removed.input.section, id: id)
        return true
    }

    /// Declares a section, or replaces its order, type, header and header row.
    func declareSection(_ input: SectionInput, headerRow: [UInt8]?) {
        dirtySections.insert(input.id)
        if var existing = sections[input.id] {
            existing.input = input
            existing.declared = true
            existing.headerRow = headerRow
            sections[input.id] = existing
        } else {
            sections[input.id] = StoredSection(input: input, declared: true, arrival: takeArrival(), headerRow: headerRow)
        }
    }

    /// Replaces the header row of a section.
    func setHeaderRow(_ headerRow: [UInt8]?, forSection id: String) {
        sections[id]?.headerRow = headerRow
    }

    /// Deletes the section and every item in it; false when there is no such section.
    @discardableResult
    func deleteSection(id: String) -> Bool {
        guard let removed = sections.removeValue(forKey: id) else { return false }
        dirtySections.insert(id)
        for member in removed.members { items.removeValue(forKey: member) }
        dirtyItems.formUnion(removed.members)
        return true
    }

    /// Replaces the whole contents: sections are declared in list order, then items are added
    /// in list order, each taking a new first-arrival rank. Ids must be unique.
    func reset(sections newSections: [(SectionInput, [UInt8]?)], items newItems: [(ItemInput, [UInt8], RenderedRow?)]) {
        items.removeAll(keepingCapacity: true)
        sections.removeAll(keepingCapacity: true)
        replacedAll = true
        dirtyItems.removeAll()
        dirtySections.removeAll()
        for (input, headerRow) in newSections { declareSection(input, headerRow: headerRow) }
        for (input, pluginInput, row) in newItems { upsert(input, pluginInput: pluginInput, row: row) }
    }

    private func joinSection(_ id: String, id item: String) {
        if sections[id] == nil {
            sections[id] = StoredSection(input: SectionInput(id: id), declared: false, arrival: takeArrival())
            dirtySections.insert(id)
        }
        sections[id]?.members.insert(item)
    }

    private func leaveSection(_ id: String, id item: String) {
        guard var section = sections[id] else { return }
        section.members.remove(item)
        if section.members.isEmpty && !section.declared {
            sections.removeValue(forKey: id)
            dirtySections.insert(id)
        } else {
            sections[id] = section
        }
    }

    private func takeArrival() -> UInt64 {
        defer { nextArrival += 1 }
        return nextArrival
    }

    // MARK: - Persistence

    /// What changed since the last call (nil when nothing did), and forgets it.
    func takeChanges() -> FeedChanges? {
        guard replacedAll || !dirtyItems.isEmpty || !dirtySections.isEmpty else { return nil }
        let changedItems = (replacedAll ? Set(items.keys) : dirtyItems).sorted().map { id in
            (id: id, item: items[id].map { stored in
                PersistedItem(id: id, type: stored.input.type, section: stored.input.section, sort: stored.input.sort, arrival: stored.arrival, json: stored.pluginInput)
            })
        }
        let changedSections = (replacedAll ? Set(sections.keys) : dirtySections).sorted().map { id in
            (id: id, section: sections[id].map { stored in
                PersistedSection(id: id, order: stored.input.order, type: stored.input.type, header: stored.input.header, declared: stored.declared, arrival: stored.arrival)
            })
        }
        let changes = FeedChanges(feed: name, seq: seq, epoch: epoch, nextArrival: nextArrival, replacedAll: replacedAll, items: changedItems, sections: changedSections)
        dirtyItems.removeAll()
        dirtySections.removeAll()
        replacedAll = false
        return changes
    }

    /// Puts back a section exactly as stored (rank and declaration included).
    func restoreSection(_ section: PersistedSection, headerRow: [UInt8]?) {
        sections[section.id] = StoredSection(
            input: SectionInput(id: section.id, order: section.order, type: section.type, header: section.header),
            declared: section.declared, arrival: section.arrival, headerRow: headerRow)
    }

    /// Puts back an item exactly as stored (rank included).
    func restoreItem(_ input: ItemInput, arrival: UInt64, pluginInput: [UInt8], row: RenderedRow?) {
        if sections[input.section] == nil {
            sections[input.section] = StoredSection(input: SectionInput(id: input.section), declared: false, arrival: arrival)
        }
        sections[input.section]?.members.insert(input.id)
        items[input.id] = StoredItem(input: input, pluginInput: pluginInput, arrival: arrival, row: row)
    }

    /// Sets the counters of a restored feed and takes its snapshot; nothing is dirty after.
    func finishRestore(seq: UInt64, nextArrival: UInt64) {
        self.seq = seq
        self.nextArrival = max(nextArrival, (items.values.map(\.arrival).max() ?? 0) + 1, (sections.values.map(\.arrival).max() ?? 0) + 1)
        snapshot = buildSnapshot()
        dirtyItems.removeAll()
        dirtySections.removeAll()
        replacedAll = false
    }

    // MARK: - Snapshot

    /// The visible state now: declared sections and sections with at least one row, in order,
    /// each with its rendered rows in order.
    func buildSnapshot() -> FeedSnapshot {
        var result: [FeedSnapshot.Section] = []
        let ordered = sections.values.sorted { $0.orderKey < $1.orderKey }
        for section in ordered {
            var members: [StoredItem] = []
            members.reserveCapacity(section.members.count)
            for id in section.members {
                if let item = items[id], item.row != nil { members.append(item) }
            }
            guard section.declared || !members.isEmpty else { continue }
            members.sort { $0.orderKey < $1.orderKey }
            let rows = members.map { item in
                FeedSnapshot.Row(id: item.input.id, cell: item.row!.cell, bytes: item.row!.bytes)
            }
            result.append(FeedSnapshot.Section(id: section.input.id, bytes: section.encoded(), rows: rows))
        }
        return FeedSnapshot(sections: result)
    }
}
