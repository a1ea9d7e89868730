/// The bytes every feed of an engine holds, kept up to date by the feeds themselves as they
/// change, so that checking `limits.max_stored_bytes` costs nothing per request.
final class StorageTally {
    /// Item JSON plus rendered rows, over every feed.
    var bytes = 0
}
