import RowCastJSON

/// What ``ReplicaSession/next(timeout:)`` saw.
public enum ReplicaEvent: Sendable {
    /// The replica was loaded from a snapshot (the first time, or after ``ReplicaSession/reload()``).
    case loaded(FeedReplica)
    /// A delta was applied; the replica is now at its `seq`. (A copy kept past the next
    /// ``ReplicaSession/next(timeout:)`` makes the session copy the rows the next delta
    /// changes; read ``ReplicaSession/replica`` instead to follow a large feed.)
    case applied(FeedReplica, delta: JSONValue)
    /// A delta did not fit (`reason`), so the replica was reloaded from a fresh snapshot.
    case resynced(FeedReplica, reason: ReplicaError)
    /// A message on another topic the session subscribed to (errors, actions, heartbeats).
    case message(SubscriberMessage)
}
