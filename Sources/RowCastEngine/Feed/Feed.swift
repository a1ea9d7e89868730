import RowCastJSON

/// One feed's state: items by id, sections by id, first-arrival ranks, the sequence number and
/// epoch of its history, and the published view (visible sections, and each section's rows in
/// an order-statistic index) that deltas are computed against. It knows nothing of plugins or
/// sockets: the engine renders and hands it rows.
///
/// Mutations change the items at once; the published view follows in `finishBatch`, which
/// returns the batch's delta. A batch that touches k rows costs O(k log n) there, not a diff
/// of the whole feed; a reset or a very large batch takes the full diff instead.
///
/// Not `Sendable`: a feed belongs to the engine that owns it, on one thread.
public final class Feed {
    /// How `finishBatch` computes the delta.
    enum DiffMode {
        /// Incremental for small batches, a full diff for resets and large ones.
        case automatic
        /// Always the full diff (tests compare the two paths).
        case full
        /// Always the incremental path (tests compare the two paths).
        case incremental
    }

    /// A row as the published view holds it.
    struct ShownRow {
        var section: String
        var key: OrderKey
        var row: RenderedRow

        /// How `item` is shown: nil when it has no row.
        static func of(_ item: StoredItem) -> ShownRow? {
            item.row.map { ShownRow(section: item.input.section, key: item.orderKey, row: $0) }
        }
    }

    /// The feed's name.
    public let name: String
    /// The seq of the last delta published (0 before the first).
    public internal(set) var seq: UInt64 = 0
    /// The name of this feed's continuous history.
    public internal(set) var epoch: String
    /// The authenticated client (CURVE key name) whose request created the feed, or nil: its
    /// feeds count against that client's quota (`AccessCheck.feedQuota`).
    public internal(set) var owner: String?
    /// How deltas are computed.
    var diffMode = DiffMode.automatic
    /// Bytes of item JSON plus rendered rows the feed holds (``EngineLimits/storedBytes``).
    public private(set) var storedBytes = 0
    /// The running total of `storedBytes` over every feed of the engine, shared by them.
    let tally: StorageTally
    /// The feed's recent deltas, for `since` (the engine bounds it).
    var history = DeltaHistory()

    /// The stored items by id.
    let items = ItemTable()
    private(set) var sections: [String: StoredSection] = [:]
    private var nextArrival: UInt64 = 0
    /// Item types already reported as unknown on the error topic (reported once each).
    var reportedUnknownTypes: Set<String> = []

    // The published view, as of the last `finishBatch`.
    private var rowIndexes: [String: OrderedRowIndex] = [:]
    private var visibleSections: [SectionMatcher.Summary] = [] {
        didSet {
            visibleSectionNumbers = Dictionary(minimumCapacity: visibleSections.count)
            for (number, section) in visibleSections.enumerated() { visibleSectionNumbers[section.id] = number }
        }
    }
    /// Each shown section's place in `visibleSections`, by id.
    private var visibleSectionNumbers: [String: Int] = [:]
    private var sectionBytes: [String: [UInt8]] = [:]
    /// Whether the batch in progress declared, changed, created or removed a section. Only then,
    /// or when a section gains its first row or loses its last, can the shown sections change:
    /// otherwise the diff leaves them as they are (O(touched rows), not O(sections)).
    private var sectionsChangedInBatch = false

    /// An item the batch in progress touched: its id, how it was shown before the batch (nil:
    /// not shown), and the stored item now (nil: deleted), so that the diff reads it without
    /// looking it up again.
    private struct Touched {
        var id: String
        var shownBefore: ShownRow?
        var item: StoredItem?
    }

    // The batch in progress: each touched item once, in the order first touched. An item finds
    // its entry through its own mark (`StoredItem.touchedIn`, `touchSlot`), so touching it
    // costs no lookup by id; only ids deleted in the batch are kept by id, for an item
    // inserted again under one of them in the same batch.
    private var before: [Touched] = []
    private var removedInBatch: [String: Int] = [:]
    /// The batch in progress, for the items' marks; starts at 1, so an unmarked item (0) is
    /// never taken for touched.
    private var batchNumber: UInt64 = 1
    private var batchReplacedAll = false

    // Changes since the last `takeChanges`, for the durable store: each changed item's id with
    // the item as it is now (nil: deleted), in the order changed, so that `takeChanges` reads it
    // without looking it up in `items` (a probe of a table of a million entries, out of the
    // caches). A stored item is listed once (its mark, `StoredItem.dirtyIn`, says it is: the
    // entry holds the object, which changes in place); a deletion is listed each time, and
    // `takeChanges` keeps the last entry of an id.
    private var dirtyItems: [(id: String, item: StoredItem?)] = []
    /// The changes in progress, for the items' marks; starts at 1 (0: never listed).
    private var changesNumber: UInt64 = 1
    private var dirtySections: Set<String> = []
    private var replacedAll = false

    /// An empty feed with a new epoch, counting its bytes into `tally`.
    init(name: String, epoch: String, tally: StorageTally = StorageTally()) {
        self.name = name
        self.epoch = epoch
        self.tally = tally
    }

    /// The bytes an item counts for: its JSON and its row.
    static func bytes(of input: ItemInput, row: RenderedRow?) -> Int {
        input.json.count + (row?.bytes.count ?? 0)
    }

    /// Adds `change` to the feed's bytes and to the engine's total.
    private func account(_ change: Int) {
        storedBytes += change
        tally.bytes += change
    }

    /// Counts an item's row going from `old` to `new` (nil: none, or no item) in `pendingCount`.
    private func countPending(from old: RenderedRow?, to new: RenderedRow?, existed: Bool = true) {
        pendingCount += (new == nil ? 1 : 0) - (existed && old == nil ? 1 : 0)
    }

    /// How many items the feed holds.
    public var itemCount: Int { items.count }
    /// How many items wait for a plugin (they have no row); kept up to date by every change,
    /// so that `status` costs nothing per item.
    public private(set) var pendingCount = 0
    /// How many rows the published view has.
    public var rowCount: Int { rowIndexes.values.reduce(0) { $0 + $1.count } }
    /// How many sections the published view has.
    public var sectionCount: Int { visibleSections.count }
    /// How many sections the feed holds, declared or named by an item (shown or not).
    var storedSectionCount: Int { sections.count }

    /// Whether the feed holds a section with this id (declared or named by an item).
    func hasSection(_ id: String) -> Bool { sections[id] != nil }

    /// The stored item with this id.
    func item(_ id: String) -> StoredItem? { items[id] }

    /// Every stored item (any order).
    var allItems: some Sequence<StoredItem> { items }

    /// Every stored section (any order).
    var allSections: Dictionary<String, StoredSection>.Values { sections.values }

    // MARK: - Mutations

    /// Inserts the item, or replaces the one with its id (keeping its first arrival).
    func upsert(_ input: ItemInput, row: RenderedRow?) {
        // Changed in place when it exists (its first arrival stays), stored when new: one
        // lookup either way. How it was shown before the batch is read in the same lookup
        // (what `touch` does for other changes) and recorded on its first change in the batch.
        let added = Self.bytes(of: input, row: row)
        var shownBefore: ShownRow?
        var stored: StoredItem?
        let previousSection = items.modifyOrInsert(
            forKey: input.id,
            insert: {
                joinSection(input.section, id: input.id)
                account(added)
                countPending(from: nil, to: row, existed: false)
                let item = StoredItem(input: input, arrival: takeArrival(), row: row)
                stored = item
                return item
            },
            update: { item in
                shownBefore = ShownRow.of(item)
                let previous = item.input.section
                account(added - Self.bytes(of: item.input, row: item.row))
                countPending(from: item.row, to: row)
                item.input = input
                item.row = row
                item.staleRow = false
                stored = item
                return previous
            })
        // Its first touch in the batch keeps how it was shown; every touch, the item now.
        let item = stored!
        if item.touchedIn == batchNumber {
            // Touched before in this batch, as this same object: its entry already holds it.
        } else if shownBefore != nil || removedInBatch.isEmpty {
            mark(item, slot: before.count)
            before.append(Touched(id: input.id, shownBefore: shownBefore, item: item))
        } else if let slot = removedInBatch[input.id] {
            // Deleted earlier in this batch and inserted again: one entry, shown as before.
            mark(item, slot: slot)
            before[slot].item = item
        } else {
            mark(item, slot: before.count)
            before.append(Touched(id: input.id, shownBefore: nil, item: item))
        }
        if item.dirtyIn != changesNumber {
            item.dirtyIn = changesNumber
            dirtyItems.append((id: input.id, item: item))
        }
        if let previousSection, previousSection != input.section {
            leaveSection(previousSection, id: input.id)
            joinSection(input.section, id: input.id)
        }
    }

    /// Replaces the row of an item (after a plugin appeared, changed or went away); the next
    /// commit stores it.
    func setRow(_ row: RenderedRow?, forItem id: String) {
        guard let item = items[id] else { return }
        touch(item, id: id)
        listChanged(item, id: id)
        account((row?.bytes.count ?? 0) - (item.row?.bytes.count ?? 0))
        countPending(from: item.row, to: row)
        item.row = row
        item.staleRow = false
    }

    /// Deletes the item; false when the feed has no item with that id.
    @discardableResult
    func delete(id: String) -> Bool {
        guard let removed = items.removeValue(forKey: id) else { return false }
        touchRemoved(removed, id: id)
        account(-Self.bytes(of: removed.input, row: removed.row))
        if removed.row == nil { pendingCount -= 1 }
        dirtyItems.append((id: id, item: nil))
        leaveSection(removed.input.section, id: id)
        return true
    }

    /// Deletes the stored record of item `id`, which is not in the feed (its record was found
    /// damaged at start): the store's next commit removes it.
    func forgetDamagedRecord(id: String) {
        dirtyItems.append((id: id, item: nil))
    }

    /// Declares a section, or replaces its order, type, header and header row.
    func declareSection(_ input: SectionInput, headerRow: [UInt8]?) {
        dirtySections.insert(input.id)
        sectionsChangedInBatch = true
        sectionBytes[input.id] = nil
        if var existing = sections[input.id] {
            existing.input = input
            existing.declared = true
            existing.headerRow = headerRow
            sections[input.id] = existing
        } else {
            sections[input.id] = StoredSection(
                input: input, declared: true, arrival: takeArrival(), headerRow: headerRow)
        }
    }

    /// Replaces the header row of a section.
    func setHeaderRow(_ headerRow: [UInt8]?, forSection id: String) {
        sectionBytes[id] = nil
        sectionsChangedInBatch = true
        sections[id]?.headerRow = headerRow
    }

    /// Deletes the section and every item in it; false when there is no such section.
    /// Scans the feed's items (O(n)): sections keep a count of their items, not a list, which
    /// keeps the frequent upsert cheap at the cost of this rare operation.
    @discardableResult
    func deleteSection(id: String) -> Bool {
        guard let removed = sections.removeValue(forKey: id) else { return false }
        dirtySections.insert(id)
        sectionsChangedInBatch = true
        sectionBytes[id] = nil
        guard removed.memberCount > 0 else { return true }
        let members = items.compactMap { $0.input.section == id ? $0.input.id : nil }
        for member in members {
            if let removed = items.removeValue(forKey: member) {
                touchRemoved(removed, id: member)
                account(-Self.bytes(of: removed.input, row: removed.row))
                if removed.row == nil { pendingCount -= 1 }
            }
        }
        for member in members { dirtyItems.append((id: member, item: nil)) }
        return true
    }

    /// Replaces the whole contents: sections are declared in list order, then items are added
    /// in list order, each taking a new first-arrival rank. Ids must be unique.
    func reset(sections newSections: [(SectionInput, [UInt8]?)], items newItems: [(ItemInput, RenderedRow?)]) {
        for item in items { touchRemoved(item, id: item.input.id) }
        items.removeAll(keepingCapacity: true)
        account(-storedBytes)
        pendingCount = 0
        sections.removeAll(keepingCapacity: true)
        sectionBytes.removeAll(keepingCapacity: true)
        sectionsChangedInBatch = true
        batchReplacedAll = true
        replacedAll = true
        dirtyItems.removeAll()
        changesNumber += 1
        dirtySections.removeAll()
        for (input, headerRow) in newSections { declareSection(input, headerRow: headerRow) }
        for (input, row) in newItems { upsert(input, row: row) }
    }

    /// Records how a stored item was shown before its first change in this batch, and the
    /// item; returns its entry in `before`.
    @discardableResult
    private func touch(_ item: StoredItem, id: String) -> Int {
        if item.touchedIn == batchNumber { return item.touchSlot }
        let slot = before.count
        mark(item, slot: slot)
        before.append(Touched(id: id, shownBefore: ShownRow.of(item), item: item))
        return slot
    }

    /// Records a stored item's first touch in this batch (see `touch`), and that it is gone now.
    private func touchRemoved(_ item: StoredItem, id: String) {
        let slot = touch(item, id: id)
        before[slot].item = nil
        removedInBatch[id] = slot
    }

    /// Marks `item` as touched in this batch, its entry at `slot` of `before`.
    private func mark(_ item: StoredItem, slot: Int) {
        item.touchedIn = batchNumber
        item.touchSlot = slot
    }

    private func joinSection(_ id: String, id item: String) {
        // One lookup, and the count changed in place: `sections[id]?.memberCount += 1` copies
        // the section out and back, and this runs for every new item.
        if let index = sections.index(forKey: id) {
            sections.values[index].memberCount += 1
            return
        }
        sections[id] = StoredSection(
            input: SectionInput(id: id), declared: false, arrival: takeArrival(), memberCount: 1)
        dirtySections.insert(id)
        sectionsChangedInBatch = true
    }

    private func leaveSection(_ id: String, id item: String) {
        guard sections[id] != nil else { return }
        sections[id]!.memberCount -= 1
        if sections[id]!.memberCount == 0 && !sections[id]!.declared {
            sections.removeValue(forKey: id)
            sectionBytes[id] = nil
            dirtySections.insert(id)
            sectionsChangedInBatch = true
        }
    }

    private func takeArrival() -> UInt64 {
        defer { nextArrival += 1 }
        return nextArrival
    }

    // MARK: - Publishing

    /// Brings the published view up to date with the batch's mutations and returns the delta
    /// between the two (empty when nothing visible changed).
    func finishBatch() -> FeedDelta {
        defer {
            before.removeAll(keepingCapacity: before.count <= Self.keptDirtyCapacity)
            removedInBatch.removeAll(keepingCapacity: removedInBatch.count <= Self.keptDirtyCapacity)
            batchNumber += 1
            batchReplacedAll = false
            sectionsChangedInBatch = false
        }
        let full: Bool
        switch diffMode {
        case .full: full = true
        case .incremental: full = false
        case .automatic: full = batchReplacedAll || before.count > 4096 && before.count * 4 > rowCount
        }
        return full ? fullDiff() : incrementalDiff()
    }

    /// The published view as a snapshot (O(n); for replies, tests and the full diff).
    public var snapshot: FeedSnapshot {
        materialize { self.items[$0]!.row! }
    }

    /// The published view as a value (O(sections): the row indexes are shared until the feed
    /// changes them), for writing a snapshot on another thread.
    var view: FeedView { FeedView(sections: visibleSections, rowIndexes: rowIndexes) }

    private func fullDiff() -> FeedDelta {
        var touchedBefore: [String: RenderedRow] = Dictionary(minimumCapacity: before.count)
        for touched in before { if let shown = touched.shownBefore { touchedBefore[touched.id] = shown.row } }
        let old = materialize { id in touchedBefore[id] ?? self.items[id]!.row! }
        rebuildIndexes()
        visibleSections = computeVisibleSections()
        return SnapshotDiff.delta(from: old, to: snapshot)
    }

    /// Where one touched item stood in the view before the batch and stands after it, as
    /// `incrementalDiff` works it out, by the item's place in `before`.
    private struct RowMove {
        /// The slot (in the diff's old `SectionSlots`) of the section it was shown in; nil when
        /// it was not shown.
        var oldSlot: Int?
        /// Its place in the view before the batch.
        var oldPath: IndexPath?
        /// How it is shown now; nil when it has no row.
        var current: ShownRow?
        /// The slot (in the diff's new `SectionSlots`) of the section it is shown in now.
        var newSlot: Int?
        /// Its rank as the insert into its section's index gave it, with how many rows of that
        /// section had been placed before others at that moment.
        var rankAtInsert: (rank: Int, placedBefore: Int)?
    }

    private func incrementalDiff() -> FeedDelta {
        var moves = [RowMove](repeating: RowMove(), count: before.count)
        // The sections the touched rows were shown in, each looked up once: its place in the
        // view and its index's position in `rowIndexes` (which stays valid until a section is
        // added or removed there).
        var oldSlots = SectionSlots()
        for offset in before.indices {
            moves[offset].oldSlot = before[offset].shownBefore.map { oldSlots.slot(of: $0.section) }
        }
        let oldPositions = oldSlots.ids.map { rowIndexes.index(forKey: $0)! }
        let oldSectionNumbers = oldSlots.ids.map { visibleSectionNumbers[$0]! }
        // Old paths, from the untouched view.
        for offset in before.indices {
            guard let slot = moves[offset].oldSlot, let shown = before[offset].shownBefore else { continue }
            let rank = rowIndexes.values[oldPositions[slot]].rank(of: shown.key)
            moves[offset].oldPath = IndexPath(section: oldSectionNumbers[slot], row: rank)
        }
        // Move the touched rows in the view: out of their old places, then the sections that
        // emptied out dropped (after, so that the positions above hold while rows go).
        for offset in before.indices {
            guard let slot = moves[offset].oldSlot, let shown = before[offset].shownBefore else { continue }
            rowIndexes.values[oldPositions[slot]].remove(shown.key)
        }
        let emptied = oldSlots.ids.indices.filter { rowIndexes.values[oldPositions[$0]].isEmpty }
        for slot in emptied { rowIndexes[oldSlots.ids[slot]] = nil }
        // Where each touched item is shown now, from the item the batch left (no lookup):
        // it serves the index here and the delta below. Its section, by slot, is added to the
        // view first if it is new, so that each section's position is found once.
        var newSlots = SectionSlots()
        for offset in before.indices {
            let current = before[offset].item.flatMap(ShownRow.of)
            moves[offset].current = current
            moves[offset].newSlot = current.map { newSlots.slot(of: $0.section) }
        }
        var indexesCreated = false
        for id in newSlots.ids where rowIndexes[id] == nil {
            rowIndexes[id] = OrderedRowIndex()
            indexesCreated = true
        }
        let newPositions = newSlots.ids.map { rowIndexes.index(forKey: $0)! }
        // A row placed after every other row of its section (as rows arriving in order are)
        // knows its rank from the insert, and keeps it unless a row goes before it later in
        // the batch: each section counts the rows placed before others, and a rank taken at a
        // count that changed since is looked up again below.
        var placedBefore = [Int](repeating: 0, count: newSlots.ids.count)
        for offset in before.indices {
            guard let current = moves[offset].current, let slot = moves[offset].newSlot else { continue }
            let index = newPositions[slot]
            if let rank = rowIndexes.values[index].insert(current.key, id: before[offset].id, row: current.row.bytes) {
                moves[offset].rankAtInsert = (rank, placedBefore[slot])
            } else {
                placedBefore[slot] += 1
            }
        }
        var delta = FeedDelta()
        // The sections are matched only when they may have changed (nil: none did).
        var match: SectionMatcher?
        if sectionsChangedInBatch || !emptied.isEmpty || indexesCreated {
            let newSections = computeVisibleSections()
            var insertedSections: [(id: String, at: Int)] = []
            match = SectionMatcher(old: visibleSections, new: newSections, into: &delta, inserted: &insertedSections)
            for (id, at) in insertedSections {
                var rows: [[UInt8]] = []
                // The index's entries carry their rows (set just above for every touched one).
                rowIndexes[id]?.forEach { rows.append($0.row) }
                delta.insertedSections.append(.init(id: id, at: at, section: newSections[at].bytes, rows: rows))
            }
            visibleSections = newSections
        }
        let newSectionNumbers = newSlots.ids.map { visibleSectionNumbers[$0]! }

        for offset in before.indices {
            let id = before[offset].id
            let shown = before[offset].shownBefore
            let move = moves[offset]
            let oldPath = move.oldPath
            let oldGone = oldPath.map { match?.oldDeleted[$0.section] ?? false } ?? true
            guard let current = move.current, let slot = move.newSlot else {
                if let oldPath, !oldGone { delta.deletedRows.append(.init(id: id, at: oldPath)) }
                continue
            }
            let sectionIndex = newSectionNumbers[slot]
            if match?.newInserted[sectionIndex] == true {
                if let oldPath, !oldGone { delta.deletedRows.append(.init(id: id, at: oldPath)) }
                continue
            }
            let rank: Int
            if let known = move.rankAtInsert, known.placedBefore == placedBefore[slot] {
                rank = known.rank
            } else {
                rank = rowIndexes.values[newPositions[slot]].rank(of: current.key)
            }
            let newPath = IndexPath(section: sectionIndex, row: rank)
            guard let shown, let oldPath, !oldGone else {
                delta.insertedRows.append(.init(id: id, at: newPath, row: current.row.bytes))
                continue
            }
            if shown.section != current.section || shown.key != current.key {
                delta.movedRows.append(.init(id: id, from: oldPath, to: newPath))
            }
            if shown.row.bytes != current.row.bytes {
                let change = FeedDelta.RowContent(id: id, at: newPath, row: current.row.bytes)
                if shown.row.cell == current.row.cell {
                    delta.reconfiguredRows.append(change)
                } else {
                    delta.reloadedRows.append(change)
                }
            }
        }
        delta.normalizeOrder()
        return delta
    }

    /// Sections shown: declared ones, and others with at least one row; in order.
    private func computeVisibleSections() -> [SectionMatcher.Summary] {
        sections.values
            .filter { $0.declared || rowIndexes[$0.input.id] != nil }
            .sorted { $0.orderKey < $1.orderKey }
            .map { section in
                if let cached = sectionBytes[section.input.id] { return .init(id: section.input.id, bytes: cached) }
                let bytes = section.encoded()
                sectionBytes[section.input.id] = bytes
                return .init(id: section.input.id, bytes: bytes)
            }
    }

    /// Where item `id`'s row is shown as of the last finished batch: its section's index and
    /// id and its index in the section (nil when the item has no shown row). The row index is
    /// a rank in the section's order-statistic index, not a scan of its rows.
    func locate(_ id: String) -> (section: Int, sectionID: String, row: Int)? {
        guard let item = items[id], item.row != nil,
            let index = rowIndexes[item.input.section],
            let row = index.position(of: item.orderKey),
            let section = visibleSectionNumbers[item.input.section]
        else { return nil }
        return (section, item.input.section, row)
    }

    /// Every shown item's row in the view's order, its bytes from `row(id)`.
    private func materialize(_ row: (String) -> RenderedRow) -> FeedSnapshot {
        FeedSnapshot(
            sections: visibleSections.map { section in
                var rows: [FeedSnapshot.Row] = []
                rows.reserveCapacity(rowIndexes[section.id]?.count ?? 0)
                rowIndexes[section.id]?.forEach { entry in
                    let rendered = row(entry.id)
                    rows.append(FeedSnapshot.Row(id: entry.id, cell: rendered.cell, bytes: rendered.bytes))
                }
                return FeedSnapshot.Section(id: section.id, bytes: section.bytes, rows: rows)
            })
    }

    /// Builds every section's index from the items (bulk load, O(n log n)).
    private func rebuildIndexes() {
        var entries: [String: [OrderedRowIndex.Entry]] = [:]
        for item in items {
            if let row = item.row {
                entries[item.input.section, default: []].append(
                    .init(key: item.orderKey, id: item.input.id, row: row.bytes))
            }
        }
        rowIndexes = entries.mapValues { list in OrderedRowIndex(sorted: list.sorted { $0.key < $1.key }) }
    }

    // MARK: - Persistence

    /// What changed since the last call (nil when nothing did), and forgets it.
    func takeChanges() -> FeedChanges? {
        guard replacedAll || !dirtyItems.isEmpty || !dirtySections.isEmpty else { return nil }
        let changedItems: [(id: String, item: PersistedItem?)]
        if replacedAll {
            changedItems = items.map { (id: $0.input.id, item: PersistedItem(id: $0.input.id, of: $0)) }.sorted {
                $0.id < $1.id
            }
        } else {
            // In id order (the sort is stable), each id once, with its last entry: the item now.
            let sorted = dirtyItems.sorted { $0.id < $1.id }
            var latest: [(id: String, item: PersistedItem?)] = []
            latest.reserveCapacity(sorted.count)
            for index in sorted.indices where index == sorted.count - 1 || sorted[index + 1].id != sorted[index].id {
                latest.append(
                    (id: sorted[index].id, item: sorted[index].item.map { PersistedItem(id: sorted[index].id, of: $0) })
                )
            }
            changedItems = latest
        }
        let changedSections = (replacedAll ? Set(sections.keys) : dirtySections).sorted().map { id in
            (
                id: id,
                section: sections[id].map { stored in
                    PersistedSection(
                        id: id, order: stored.input.order, type: stored.input.type, header: stored.input.header,
                        declared: stored.declared, arrival: stored.arrival)
                }
            )
        }
        var changes = FeedChanges(
            feed: name, seq: seq, epoch: epoch, nextArrival: nextArrival, replacedAll: replacedAll, items: changedItems,
            sections: changedSections)
        changes.owner = owner
        // The list and the table are kept for the next commit's changes unless a big batch grew
        // them: emptied to nothing, they grew again through every size (the table rehashing
        // what it held).
        dirtyItems.removeAll(keepingCapacity: dirtyItems.count <= Self.keptDirtyCapacity)
        changesNumber += 1
        dirtySections.removeAll(keepingCapacity: dirtySections.count <= Self.keptDirtyCapacity)
        replacedAll = false
        return changes
    }

    /// The most entries whose room the per-batch lists (`before`, `removedInBatch`) and the
    /// changes for the store (`dirtyItems`, `dirtySections`) keep once emptied.
    static let keptDirtyCapacity = 4096

    /// Puts back a section exactly as stored (rank and declaration included).
    func restoreSection(_ section: PersistedSection, headerRow: [UInt8]?) {
        sectionBytes[section.id] = nil
        sectionsChangedInBatch = true
        let memberCount = sections[section.id]?.memberCount ?? 0
        sections[section.id] = StoredSection(
            input: SectionInput(id: section.id, order: section.order, type: section.type, header: section.header),
            declared: section.declared, arrival: section.arrival, headerRow: headerRow, memberCount: memberCount)
    }

    /// Makes room for `count` items at once (before a restore), so the feed does not grow
    /// its tables step by step.
    func reserveItems(_ count: Int) {
        items.reserveCapacity(count)
    }

    /// Puts back an item exactly as stored (rank included); `stale` when its row was drawn by
    /// a renderer that changed since (it is served until rendered again, see `StaleRenders`).
    func restoreItem(_ input: ItemInput, arrival: UInt64, row: RenderedRow?, stale: Bool = false) {
        if sections[input.section] == nil {
            sections[input.section] = StoredSection(
                input: SectionInput(id: input.section), declared: false, arrival: arrival)
            sectionsChangedInBatch = true
        }
        sections[input.section]?.memberCount += 1
        account(Self.bytes(of: input, row: row))
        countPending(from: nil, to: row, existed: false)
        let item = StoredItem(input: input, arrival: arrival, row: row)
        item.staleRow = stale
        items.updateValue(item)
    }

    /// Lists item `id` among the changes for the store although it did not change (its row
    /// was rendered at start for a record that did not keep it): the next commit writes it.
    func markUnstored(id: String) {
        guard let item = items[id] else { return }
        listChanged(item, id: id)
    }

    /// Lists `item` among the changes for the store, once.
    private func listChanged(_ item: StoredItem, id: String) {
        guard item.dirtyIn != changesNumber else { return }
        item.dirtyIn = changesNumber
        dirtyItems.append((id: id, item: item))
    }

    /// Sets the counters of a restored feed and builds its view; nothing is dirty after.
    func finishRestore(seq: UInt64, nextArrival: UInt64) {
        self.seq = seq
        var highest = sections.values.map(\.arrival).max() ?? 0
        for item in items { highest = max(highest, item.arrival) }
        self.nextArrival = max(nextArrival, highest + 1)
        rebuildIndexes()
        visibleSections = computeVisibleSections()
        before.removeAll()
        removedInBatch.removeAll()
        batchNumber += 1
        batchReplacedAll = false
        sectionsChangedInBatch = false
        dirtyItems.removeAll()
        changesNumber += 1
        dirtySections.removeAll()
        replacedAll = false
    }
}
