/// What ``FeedReplica/apply(delta:)`` did with a delta it accepted.
public enum DeltaOutcome: Sendable, Equatable {
    /// The delta was the next one and is now part of the replica.
    case applied
    /// The delta's `seq` is not newer than the replica's: it is already included; nothing changed.
    case alreadyIncluded
}
