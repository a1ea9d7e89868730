import Collections
import RowCastJSON

import RowCastPluginHosting

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The items whose plugin crashed or hung on them: stored, not rendered, and not rendered
/// again until their plugin file changes, an operator retries them, or a new version of the
/// item arrives. Kept in memory, in the order the faults happened.
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

    private var entries: OrderedDictionary<Key, Entry> = [:]

    /// An empty quarantine.
    public init() {}

    /// How many items are quarantined.
    public var count: Int { entries.count }

    /// Whether item `id` of `feed` is quarantined.
    public func contains(feed: String, id: String) -> Bool {
        !entries.isEmpty && entries[Key(feed: feed, id: id)] != nil
    }

    /// Quarantines item `id` of `feed`, of `type`, for `fault`.
    mutating func add(feed: String, id: String, type: String, fault: PluginFaultReport) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        entries[Key(feed: feed, id: id)] = Entry(
            type: type, fault: fault, at: Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000)
    }

    /// Lists `item`, whose stored record is damaged.
    mutating func addDamaged(_ item: DamagedItem) {
        add(
            feed: item.feed, id: item.id, type: item.type,
            fault: PluginFaultReport(
                code: .recordDamaged,
                reason: "its stored record is damaged (\(item.reason)); it is not served: send it again or delete it",
                plugin: "", file: ""))
    }

    /// Whether item `id` of `feed` is listed because its stored record is damaged.
    public func isDamaged(feed: String, id: String) -> Bool {
        !entries.isEmpty && entries[Key(feed: feed, id: id)]?.fault.code == .recordDamaged
    }

    /// Releases item `id` of `feed` (rendered, replaced or deleted).
    mutating func remove(feed: String, id: String) {
        guard !entries.isEmpty else { return }
        entries.removeValue(forKey: Key(feed: feed, id: id))
    }

    /// Releases the items of `feed` (a reset), or those of its items for which `gone` holds;
    /// with `keepingDamaged`, not those listed for a damaged record.
    mutating func removeAll(feed: String, keepingDamaged: Bool = false, where gone: (String) -> Bool = { _ in true }) {
        guard !entries.isEmpty else { return }
        entries.removeAll {
            $0.key.feed == feed && !(keepingDamaged && $0.value.fault.code == .recordDamaged) && gone($0.key.id)
        }
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
