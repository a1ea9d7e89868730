/// Where a stream connection wants to start: after `seq` of `epoch` (`?since=SEQ&epoch=E`).
///
/// A connection without one starts from a snapshot.
public struct ResumePoint: Sendable, Equatable {
    /// The last seq the client applied.
    public let seq: Int
    /// The epoch of that seq (`nil` only with `seq` 0: the client had the feed before it existed).
    public let epoch: String?

    /// A resume point after `seq` of `epoch`.
    public init(seq: Int, epoch: String?) {
        self.seq = seq
        self.epoch = epoch
    }

    /// The resume point of a query's `since` and `epoch` values, `nil` when neither is given.
    ///
    /// - Throws: a ``GatewayError`` (HTTP 400) naming the value that is wrong: `since` that is
    ///   not a non-negative integer, `epoch` without `since`, `since` above 0 without `epoch`,
    ///   or an `epoch` that is empty or longer than 128 characters.
    public static func parse(since: String?, epoch: String?) throws(GatewayError) -> ResumePoint? {
        guard let since else {
            if epoch != nil {
                throw .badRequest("epoch=\(epoch!.prefix(140)) needs since=SEQ: the seq the client last applied")
            }
            return nil
        }
        guard !since.isEmpty, since.utf8.count <= 18,
            since.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let seq = Int(since)
        else {
            throw .badRequest(
                "since=\(since.prefix(40)) is not a seq: give the non-negative integer seq of the last delta the client applied"
            )
        }
        if let epoch {
            guard !epoch.isEmpty, epoch.utf8.count <= 128 else {
                throw .badRequest(
                    "epoch must be the 1 to 128 characters of the feed's epoch, as the snapshot or delta gave it")
            }
            return ResumePoint(seq: seq, epoch: epoch)
        }
        guard seq == 0 else {
            throw .badRequest("since=\(seq) needs epoch=E: the epoch of that seq, as the snapshot or delta gave it")
        }
        return ResumePoint(seq: 0, epoch: nil)
    }
}
