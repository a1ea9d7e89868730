import RowCastEngine

/// Which subscriptions on the publish socket an authenticated client may make: `read` on the
/// feed for `rows.<feed>\0`, `errors.<feed>\0` and `actions.<feed>\0`; heartbeats for anyone;
/// any other prefix (`rows.`, `errors`, the empty one) only with `read` on every feed, since it
/// would match feeds the client may not read.
enum SubscriptionFilter {
    /// The per-feed topic kinds.
    static let feedTopics = ["rows.", "errors.", "actions."]

    /// Whether `principal` may subscribe to `prefix`.
    static func allows(_ prefix: [UInt8], principal: String, access: any AccessCheck) -> Bool {
        if !prefix.isEmpty, Topic.heartbeat.starts(with: prefix) { return true }
        if let feed = feed(of: prefix) {
            return access.allows(principal, .read, feed: feed)
        }
        return access.allowsEveryFeed(principal, .read)
    }

    /// The feed of an exact per-feed topic (`rows.cars\0` → `cars`), or nil.
    static func feed(of prefix: [UInt8]) -> String? {
        guard prefix.last == 0 else { return nil }
        let name = String(decoding: prefix.dropLast(), as: UTF8.self)
        for kind in feedTopics where name.hasPrefix(kind) && name.count > kind.count {
            let feed = String(name.dropFirst(kind.count))
            return Names.isValidFeed(feed) ? feed : nil
        }
        return nil
    }
}
