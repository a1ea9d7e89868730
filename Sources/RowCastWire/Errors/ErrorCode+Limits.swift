extension ErrorCode {
    /// Applying the request would pass one of the `limits.max_*` limits (feeds, items per
    /// feed, sections per feed, stored bytes), or its reply would pass the message limit; the
    /// message names the limit. Nothing of the request was applied.
    public static let limitExceeded = ErrorCode(rawValue: "limit_exceeded")
}
