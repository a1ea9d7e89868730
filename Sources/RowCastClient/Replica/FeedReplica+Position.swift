import RowCastJSON

extension FeedReplica {
    /// Checks a `position` event of this feed (PROTOCOL.md, "Positions") against the replica.
    ///
    /// - Returns: ``DeltaOutcome/alreadyIncluded`` when the replica has every delta up to the
    ///   position (nothing changes).
    /// - Throws: `gap` when the position is past the replica's `seq` (the last deltas were
    ///   missed), `epoch_changed` when it names another epoch, `feed_mismatch` or
    ///   `invalid_delta`; the replica must then be reloaded from a snapshot.
    public func check(position json: JSONValue) throws(ReplicaError) -> DeltaOutcome {
        guard let positionFeed = json["feed"]?.stringValue, let positionSeq = json["seq"]?.integerValue,
            positionSeq >= 0,
            let positionEpoch = json["epoch"]?.stringValue
        else {
            throw ReplicaError(
                .invalidDelta, "position event of feed \(feed): \"feed\", \"epoch\" or \"seq\" is missing or mistyped")
        }
        guard positionFeed == feed else {
            throw ReplicaError(.feedMismatch, "a position of feed \(positionFeed) reached the replica of feed \(feed)")
        }
        if epoch == nil, seq == 0 {
            // The feed did not exist at the snapshot: a position at seq 1 or later means its
            // first deltas went by.
            guard positionSeq == 0 else {
                throw ReplicaError(
                    .gap,
                    "feed \(feed): the daemon is at seq \(positionSeq) (epoch \(positionEpoch)) but the replica has no delta; \(positionSeq) delta(s) were missed"
                )
            }
            return .alreadyIncluded
        }
        guard positionEpoch == epoch else {
            throw ReplicaError(
                .epochChanged,
                "feed \(feed): the replica follows epoch \(epoch ?? "null") at seq \(seq), but the daemon's position is epoch \(positionEpoch) seq \(positionSeq)"
            )
        }
        guard positionSeq <= seq else {
            throw ReplicaError(
                .gap,
                "feed \(feed): the daemon is at seq \(positionSeq) but the replica at seq \(seq); the last \(positionSeq - seq) delta(s) were missed"
            )
        }
        return .alreadyIncluded
    }
}

extension FeedReplica {
    /// Applies the deltas of a `since` reply (PROTOCOL.md, "Resuming from history").
    ///
    /// - Returns: `true` when the reply covered the gap and every delta was applied (or already
    ///   included); `false` when the daemon's history no longer covers it (`"covered":false`):
    ///   the replica is unchanged and needs a snapshot.
    /// - Throws: a ``ReplicaError`` when a delta does not fit; the replica is then unchanged.
    public mutating func resume(from reply: JSONValue) throws(ReplicaError) -> Bool {
        guard reply["covered"]?.boolValue == true else { return false }
        guard let deltas = reply["deltas"]?.arrayValue else {
            throw ReplicaError(.invalidDelta, "since reply for feed \(feed): \"deltas\" is missing or not an array")
        }
        var resumed = self
        for delta in deltas { try resumed.apply(delta: delta) }
        self = resumed
        return true
    }
}
