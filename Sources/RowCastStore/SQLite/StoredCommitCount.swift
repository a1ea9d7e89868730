import GRDB

/// How many commits a database holds: the larger of `meta`'s `commits` and the feed rows'
/// `last_commit` (schema v8).
///
/// Every commit moves the count by one, and `CommitMarker` records it beside the database. A
/// commit that writes feed rows puts its number into each of them (`last_commit`), which costs
/// nothing more than the row it rewrites anyway; a commit that writes none, or drops a feed
/// (whose row might hold the highest number), writes `meta` instead. So the highest number
/// either holds is the last commit's, and a database that lost commits shows a lower one.
enum StoredCommitCount {
    /// The count `meta` (its values, read by the caller) and the feed rows of `db` hold; the
    /// feed rows count only where the schema has `last_commit`.
    static func read(_ db: Database, meta: [String: String]) throws -> UInt64 {
        let recorded = meta["commits"].flatMap { UInt64($0) } ?? 0
        guard try db.tableExists("feeds"), try db.columns(in: "feeds").contains(where: { $0.name == "last_commit" })
        else { return recorded }
        let inFeeds = try Int64.fetchOne(db, sql: "SELECT max(last_commit) FROM feeds") ?? 0
        return max(recorded, UInt64(max(inFeeds, 0)))
    }
}
