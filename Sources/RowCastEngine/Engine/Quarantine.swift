import Collections
import RowCastJSON

import RowCastPluginHosting

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The items whose plugin crashed or hung on them: stored, not rendered, and not rendered
/// again (not at a start, not at a reload) until an operator retries them (`rowcast quarantine
/// retry`) or a new version of the item arrives. Kept in the order the faults happened, and
/// durably: every change is handed to the store with the batch's commit (`takeChanges`), and
/// a start puts the stored entries back (`restore`).
///
/// Bounded: at most `limits.perFeed` entries per feed and `limits.total` in all. Past either,
/// the oldest entry (of the feed, or of all) is dropped: its item stays stored without a row
/// and is no longer listed, so a later reload may render it again (see docs/OPERATIONS.md,
/// "Quarantine"). `takeDropped` hands the dropped entries to the engine, which reports each.
///
/// It also lists the items whose stored record was found damaged at start (code
/// `record_damaged`): those are not in their feed at all, and leave the quarantine when the
/// item is sent again, deleted, or its feed reset.
public struct Quarantine {
    /// Where an item is.
    public struct Key: Hashable, Sendable {
        /// The feed.
        public var feed: String
        /// The item id.
        public var id: String
    }

    /// One quarantined item.
    public struct Entry: Sendable, Equatable {
        /// The item's type.
        public var type: String
        /// What its plugin did.
        public var fault: PluginFaultReport
        /// When, in milliseconds since the epoch.
        public var at: Int64
    }

    /// How many entries the quarantine keeps.
    public struct Limits: Sendable, Equatable {
        /// The most entries of one feed.
        public var perFeed: Int
        /// The most entries in all.
        public var total: Int

        /// Limits from their parts.
        public init(perFeed: Int = 1000, total: Int = 100_000) {
            self.perFeed = perFeed
            self.total = total
        }
    }

    private var entries: OrderedDictionary<Key, Entry> = [:]
    /// Entries per feed, for `limits.perFeed` (damaged records not counted).
    private var perFeed: [String: Int] = [:]
    /// Entries in all (damaged records not counted).
    private var countedTotal = 0
    /// Changes for the store since the last `takeChanges`: each key's final state (nil: gone).
    private var unstored: [Key: Entry?] = [:]
    /// Entries dropped for the limits since the last `takeDropped`, oldest first.
    private var dropped: [(key: Key, entry: Entry)] = []
    /// The bounds in force.
    public var limits = Limits()

    /// An empty quarantine.
    public init() {}

    /// How many items are quarantined.
    public var count: Int { entries.count }

    /// Whether item `id` of `feed` is quarantined.
    public func contains(feed: String, id: String) -> Bool {
        !entries.isEmpty && entries[Key(feed: feed, id: id)] != nil
    }

    /// Quarantines item `id` of `feed`, of `type`, for `fault`; drops the oldest entries past
    /// the limits (`takeDropped`).
    mutating func add(feed: String, id: String, type: String, fault: PluginFaultReport) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let key = Key(feed: feed, id: id)
        let entry = Entry(type: type, fault: fault, at: Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000)
        insert(entry, at: key)
        unstored[key] = .some(entry)
        enforceLimits(feed: feed)
    }

    /// Puts back the entries the store kept (at start, or after a failed commit): they replace
    /// every entry but those of damaged records. Nothing of them is handed back as a change.
    mutating func restore(_ stored: [QuarantinedItem]) {
        entries.removeAll { $0.value.fault.code != .recordDamaged }
        perFeed = [:]
        countedTotal = 0
        unstored = [:]
        for item in stored {
            let fault = PluginFaultReport(code: item.code, reason: item.reason, plugin: item.plugin, file: item.file)
            insert(Entry(type: item.type, fault: fault, at: item.at), at: Key(feed: item.feed, id: item.id))
        }
    }

    /// Adds the entries the store kept for feeds taken over at run time (a cluster node's new
    /// partitions); nothing of them is handed back as a change.
    mutating func adopt(_ stored: [QuarantinedItem]) {
        for item in stored {
            let fault = PluginFaultReport(code: item.code, reason: item.reason, plugin: item.plugin, file: item.file)
            insert(Entry(type: item.type, fault: fault, at: item.at), at: Key(feed: item.feed, id: item.id))
        }
    }

    /// Forgets the entries of the feeds for which `leaving` holds (a cluster node gave their
    /// partitions up), recording nothing for the store, which keeps them.
    mutating func forget(feeds leaving: (String) -> Bool) {
        let keys = entries.keys.filter { leaving($0.feed) }
        for key in keys {
            unstored[key] = nil
            if let entry = entries.removeValue(forKey: key), entry.fault.code != .recordDamaged {
                uncount(feed: key.feed)
            }
        }
    }

    /// The changes for the store since the last call, and forgets them.
    mutating func takeChanges() -> QuarantineChanges {
        var changes = QuarantineChanges()
        guard !unstored.isEmpty else { return changes }
        for (key, entry) in unstored.sorted(by: { ($0.key.feed, $0.key.id) < ($1.key.feed, $1.key.id) }) {
            if let entry {
                changes.entered.append(Self.stored(key, entry))
            } else {
                changes.left.append((key.feed, key.id))
            }
        }
        unstored = [:]
        return changes
    }

    /// Whether entries were dropped for the limits since the last `takeDropped`.
    var hasDropped: Bool { !dropped.isEmpty }

    /// The entries dropped for the limits since the last call, oldest first, and forgets them.
    mutating func takeDropped() -> [QuarantinedItem] {
        guard !dropped.isEmpty else { return [] }
        defer { dropped = [] }
        return dropped.map { Self.stored($0.key, $0.entry) }
    }

    /// How the store keeps an entry.
    private static func stored(_ key: Key, _ entry: Entry) -> QuarantinedItem {
        QuarantinedItem(
            feed: key.feed, id: key.id, type: entry.type, code: entry.fault.code, reason: entry.fault.reason,
            plugin: entry.fault.plugin, file: entry.fault.file, at: entry.at)
    }

    /// Adds or replaces an entry, counting it for its feed.
    private mutating func insert(_ entry: Entry, at key: Key) {
        if let previous = entries.updateValue(entry, forKey: key), previous.fault.code != .recordDamaged {
            uncount(feed: key.feed)
        }
        if entry.fault.code != .recordDamaged {
            perFeed[key.feed, default: 0] += 1
            countedTotal += 1
        }
    }

    /// Takes one entry of `feed` off the counts.
    private mutating func uncount(feed: String) {
        perFeed[feed, default: 1] -= 1
        if perFeed[feed] == 0 { perFeed[feed] = nil }
        countedTotal -= 1
    }

    /// Drops the oldest entries of `feed` past `limits.perFeed`, then the oldest of all past
    /// `limits.total`.
    private mutating func enforceLimits(feed: String) {
        while perFeed[feed, default: 0] > limits.perFeed,
            let oldest = entries.first(where: { $0.key.feed == feed && $0.value.fault.code != .recordDamaged })
        {
            drop(oldest.key, oldest.value)
        }
        while countedTotal > limits.total,
            let oldest = entries.first(where: { $0.value.fault.code != .recordDamaged })
        {
            drop(oldest.key, oldest.value)
        }
    }

    private mutating func drop(_ key: Key, _ entry: Entry) {
        release(key)
        dropped.append((key, entry))
    }

    /// Removes an entry (not one of a damaged record's: those are never stored), and records
    /// its release for the store.
    private mutating func release(_ key: Key) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        guard entry.fault.code != .recordDamaged else { return }
        uncount(feed: key.feed)
        unstored[key] = .some(nil)
    }

    /// Lists `item`, whose stored record is damaged (not stored: a start finds it again).
    mutating func addDamaged(_ item: DamagedItem) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        insert(
            Entry(
                type: item.type,
                fault: PluginFaultReport(
                    code: .recordDamaged,
                    reason:
                        "its stored record is damaged (\(item.reason)); it is not served: send it again or delete it",
                    plugin: "", file: ""),
                at: Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000),
            at: Key(feed: item.feed, id: item.id))
    }

    /// Whether item `id` of `feed` is listed because its stored record is damaged.
    public func isDamaged(feed: String, id: String) -> Bool {
        !entries.isEmpty && entries[Key(feed: feed, id: id)]?.fault.code == .recordDamaged
    }

    /// Releases item `id` of `feed` (rendered, replaced or deleted).
    mutating func remove(feed: String, id: String) {
        guard !entries.isEmpty else { return }
        release(Key(feed: feed, id: id))
    }

    /// Releases the items of `feed` (a reset), or those of its items for which `gone` holds;
    /// with `keepingDamaged`, not those listed for a damaged record.
    mutating func removeAll(feed: String, keepingDamaged: Bool = false, where gone: (String) -> Bool = { _ in true }) {
        guard !entries.isEmpty else { return }
        let leaving = entries.filter {
            $0.key.feed == feed && !(keepingDamaged && $0.value.fault.code == .recordDamaged) && gone($0.key.id)
        }
        for key in leaving.keys { release(key) }
    }

    /// The quarantined items, all or those of `feed` (and `id`), oldest first.
    func keys(feed: String?, id: String?) -> [Key] {
        entries.keys.filter { key in (feed == nil || key.feed == feed) && (id == nil || key.id == id) }
    }

    /// `[{"feed","id","type","code","message","plugin","file","at"}]`, oldest first.
    public var json: JSONValue {
        .array(
            entries.map { key, entry in
                [
                    "feed": .string(key.feed), "id": .string(key.id), "type": .string(entry.type),
                    "code": .string(entry.fault.code.rawValue), "message": .string(entry.fault.reason),
                    "plugin": .string(entry.fault.plugin), "file": .string(entry.fault.file),
                    "at": .number(Double(entry.at)),
                ]
            })
    }
}
