import DequeModule

/// The most recent deltas of one feed, as sent, for connections that resume with `since`.
///
/// Holds a run of consecutive seqs of one epoch, at most `limit` of them, the oldest going
/// first; a load from a snapshot starts it again empty.
struct DeltaHistory {
    /// The epoch the deltas belong to.
    private(set) var epoch: String?
    /// The seq the first kept delta follows (the seq of the snapshot it started at, or of the
    /// last delta dropped).
    private(set) var baseSeq: Int
    /// The delta texts, of seq baseSeq+1, baseSeq+2, ...
    private var texts: Deque<String> = []
    /// How many deltas are kept.
    let limit: Int

    /// An empty history at `seq` of `epoch`.
    init(epoch: String?, seq: Int, limit: Int) {
        self.epoch = epoch
        baseSeq = seq
        self.limit = max(0, limit)
    }

    /// The seq of the last delta kept (or of the start).
    var lastSeq: Int { baseSeq + texts.count }

    /// Starts again, empty, at `seq` of `epoch`.
    mutating func restart(epoch: String?, seq: Int) {
        self.epoch = epoch
        baseSeq = seq
        texts.removeAll()
    }

    /// Adds the delta that moves the feed to `seq` of `epoch`; a delta that does not follow
    /// the last one (another epoch, a gap) starts the history again at it.
    mutating func append(_ text: String, seq: Int, epoch: String?) {
        if epoch != self.epoch || seq != lastSeq + 1 {
            restart(epoch: epoch, seq: seq - 1)
        }
        texts.append(text)
        while texts.count > limit {
            texts.removeFirst()
            baseSeq += 1
        }
    }

    /// The deltas after `seq` of `epoch` up to the last one, or `nil` when the history does
    /// not cover that point (another epoch, older than the first kept, or past the last).
    func deltas(after seq: Int, epoch: String?) -> [String]? {
        guard epoch == self.epoch, seq >= baseSeq, seq <= lastSeq else { return nil }
        return Array(texts.dropFirst(seq - baseSeq))
    }
}
