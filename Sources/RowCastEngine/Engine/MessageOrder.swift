/// The order a batch's messages must keep when some wait on a plugin host and others are
/// applied ahead of them: a message may overtake the ones before it only when none of them
/// concerns its feed or came on its connection, and no message overtakes, or is overtaken by,
/// one that concerns every feed (`reload`, a quarantine retry of every feed).
struct MessageOrder {
    /// What orders one message.
    struct Key {
        /// The feed it concerns (nil: none, as `status`).
        var feed: String?
        /// The connection it came on (nil: the ingest socket, which keeps order per feed only).
        var connection: UInt64?
        /// Whether it concerns every feed.
        var concernsAll: Bool
    }

    private var feeds: Set<String> = []
    private var connections: Set<UInt64> = []
    private var waitsForAll = false
    private var holdsAny = false

    /// Whether a message with `key` must wait for the messages held so far.
    func holds(_ key: Key) -> Bool {
        if waitsForAll || (key.concernsAll && holdsAny) { return true }
        if let feed = key.feed, feeds.contains(feed) { return true }
        if let connection = key.connection, connections.contains(connection) { return true }
        return false
    }

    /// Records that a message with `key` is not applied yet: later ones of its feed and
    /// connection wait for it.
    mutating func hold(_ key: Key) {
        holdsAny = true
        waitsForAll = waitsForAll || key.concernsAll
        if let feed = key.feed { feeds.insert(feed) }
        if let connection = key.connection { connections.insert(connection) }
    }

    /// The key of `message`, decoded as `outcome`. Control requests of unknown connection
    /// count as one connection.
    static func key(of message: IncomingMessage, decoded outcome: RequestDecoder.Outcome) -> Key {
        let connection = message.origin == .ingest ? nil : (message.connection ?? 0)
        guard case .request(let request) = outcome else {
            return Key(feed: nil, connection: connection, concernsAll: false)
        }
        let concernsAll: Bool
        switch request.operation {
        case .reload: concernsAll = true
        case .quarantine(retry: true, _): concernsAll = request.feed == nil
        default: concernsAll = false
        }
        return Key(feed: request.feed, connection: connection, concernsAll: concernsAll)
    }
}
