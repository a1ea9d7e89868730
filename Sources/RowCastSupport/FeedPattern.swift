#if canImport(Glibc)
import Glibc
#endif

/// Shell-style patterns of feed names (`cars*`, `team-?`, `[ab]*`), as `fnmatch(3)` reads them:
/// the one rule for the `allow` lines of CURVE key files and the feeds of the gateway's tokens.
public enum FeedPattern {
    /// Whether `feed` matches `pattern`.
    public static func matches(_ pattern: String, _ feed: String) -> Bool {
        fnmatch(pattern, feed, 0) == 0
    }
}
