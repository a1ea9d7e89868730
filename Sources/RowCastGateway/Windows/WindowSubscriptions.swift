import RowCastClient
import RowCastJSON

/// The windows that follow one feed's hub, as a pure value kept behind the hub's lock: each
/// with its connection's queue, the window once it is opened, and a move it asked for. The
/// hub's thread opens, moves and advances them (it alone holds the replica); connections add
/// and remove them and ask for moves.
struct WindowSubscriptions {
    /// One subscriber's window.
    struct Subscription {
        /// Where its messages go.
        let outbox: ConnectionOutbox
        /// Whether an error that ends the subscription also ends the queue (a stream that is
        /// about this window only, as Server-Sent Events are).
        let ownsOutbox: Bool
        /// The window to open (again, after the hub reloaded its replica).
        var request: WindowRequest
        /// The window, once opened.
        var window: FeedWindow?
        /// A move asked for and not yet made.
        var move: WindowRequest?
    }

    /// The subscriptions, by id.
    private(set) var subscriptions: [Int: Subscription] = [:]
    /// The id the next one gets.
    private var nextID = 0
    /// How many were dropped because their queue overflowed.
    private(set) var overflowCount = 0

    /// How many windows follow the feed.
    var count: Int { subscriptions.count }

    /// Whether a subscription waits to be opened or moved.
    var hasWork: Bool { subscriptions.values.contains { $0.window == nil || $0.move != nil } }

    /// Adds a window of `request` sent to `outbox`; the hub's thread opens it.
    mutating func add(_ request: WindowRequest, outbox: ConnectionOutbox, ownsOutbox: Bool) -> Int {
        let id = nextID
        nextID += 1
        subscriptions[id] = Subscription(outbox: outbox, ownsOutbox: ownsOutbox, request: request)
        return id
    }

    /// Asks to move window `id` to `request` (a later move replaces one not yet made);
    /// `false` when there is no such window.
    mutating func requestMove(_ id: Int, to request: WindowRequest) -> Bool {
        guard subscriptions[id] != nil else { return false }
        if subscriptions[id]!.window == nil {
            subscriptions[id]!.request = request
        } else {
            subscriptions[id]!.move = request
        }
        return true
    }

    /// Removes window `id`, finishing its queue when it owns it.
    mutating func remove(_ id: Int) {
        guard let removed = subscriptions.removeValue(forKey: id) else { return }
        if removed.ownsOutbox { removed.outbox.finish() }
    }

    /// Opens the windows not yet opened and makes the moves asked for, in `replica`.
    mutating func serve(replica: FeedReplica, layout: FlatLayout) {
        for id in Array(subscriptions.keys) {
            guard var subscription = subscriptions[id] else { continue }
            if subscription.window == nil {
                do throws(FeedWindow.Unplaced) {
                    let (window, text) = try FeedWindow.open(subscription.request, replica: replica, layout: layout)
                    subscription.window = window
                    subscription.move = nil
                    subscriptions[id] = subscription
                    offer(text, to: id)
                } catch {
                    offer(Self.unplacedMessage(error, feed: replica.feed), to: id)
                    remove(id)
                }
            } else if let move = subscription.move {
                subscription.move = nil
                do throws(FeedWindow.Unplaced) {
                    let text = try subscription.window!.move(to: move, replica: replica, layout: layout)
                    subscriptions[id] = subscription
                    offer(text, to: id)
                } catch {
                    subscriptions[id] = subscription
                    offer(Self.unplacedMessage(error, feed: replica.feed), to: id)
                }
            }
        }
    }

    /// Takes every open window through one delta, sending each the message it needs.
    mutating func follow(_ changes: WindowChanges, replica: FeedReplica, layout: FlatLayout) {
        for id in Array(subscriptions.keys) {
            guard subscriptions[id]?.window != nil else { continue }
            if let text = subscriptions[id]!.window!.follow(changes, replica: replica, layout: layout) {
                offer(text, to: id)
            }
        }
    }

    /// After the hub reloaded its replica: every window opens again where it was (a new
    /// `window` message), at the next ``serve(replica:layout:)``.
    mutating func reopenAll() {
        for id in Array(subscriptions.keys) {
            guard let window = subscriptions[id]!.window else { continue }
            subscriptions[id]!.request = WindowRequest(start: .offset(window.offset), limit: window.limit)
            subscriptions[id]!.window = nil
            subscriptions[id]!.move = nil
        }
    }

    /// Sends `text` (an action event, an unavailable notice) to every window.
    mutating func broadcast(_ text: String) {
        for id in Array(subscriptions.keys) { offer(text, to: id) }
    }

    /// Ends every queue the windows own; forgets them all.
    mutating func finishAll() {
        for subscription in subscriptions.values where subscription.ownsOutbox { subscription.outbox.finish() }
        subscriptions.removeAll()
    }

    /// Queues `text` for window `id`, dropping the window when its queue overflowed or ended.
    private mutating func offer(_ text: String, to id: Int) {
        guard let subscription = subscriptions[id], !subscription.outbox.offer(text) else { return }
        if subscription.outbox.hasOverflowed { overflowCount += 1 }
        subscriptions.removeValue(forKey: id)
    }

    /// `{"event":"error","code":"not_found",...}` for a window whose row is not in the feed.
    static func unplacedMessage(_ error: FeedWindow.Unplaced, feed: String) -> String {
        let message: JSONValue = [
            "event": "error", "code": "not_found", "feed": .string(feed), "field": .string(error.field),
            "message": .string(
                "feed \(feed) has no row \"\(error.id.prefix(200))\" to place the window \(error.field)"),
        ]
        return message.jsonText
    }
}
