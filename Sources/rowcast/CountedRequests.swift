import RowCastClient
import RowCastJSON

/// A request source that tells a progress line of each request it gives.
struct CountedRequests<Base: RequestSource>: RequestSource {
    /// The source counted.
    private(set) var base: Base
    /// Told of each request given.
    let progress: ProgressLine?

    /// `base`, counted into `progress`.
    init(_ base: Base, progress: ProgressLine?) {
        self.base = base
        self.progress = progress
    }

    mutating func next() -> Result<JSONValue, RowCastClientError>? {
        let next = base.next()
        if next != nil { progress?.sent() }
        return next
    }

    func wouldWait() -> Bool { base.wouldWait() }

    var isBounded: Bool { base.isBounded }
}
