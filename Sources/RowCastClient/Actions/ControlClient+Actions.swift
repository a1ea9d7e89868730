import RowCastJSON

extension ControlClient {
    /// The action events of `feed` after event sequence `after` (at most `limit`, up to the
    /// daemon's page size of 1,000). A producer keeps the last `eventSeq` it handled and asks
    /// for the ones after it, so it misses none while it was down (within the retention).
    public func events(feed: String, after: Int = 0, limit: Int? = nil) throws(RowCastClientError) -> ActionEventPage {
        try ActionEventPage(reply: request(RowCastRequest.events(feed: feed, after: after, limit: limit)))
    }

    /// Where the row of item `id` of `feed` is: section and row index, and the seq they hold at.
    public func locate(feed: String, id: String) throws(RowCastClientError) -> RowLocation {
        try RowLocation(reply: request(RowCastRequest.locate(feed: feed, id: id)))
    }
}
