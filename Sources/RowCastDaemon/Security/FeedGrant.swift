import RowCastEngine
import RowCastSupport

/// One `allow` line of a client key file: permissions on feed-name patterns.
public struct FeedGrant: Sendable, Equatable {
    /// The permissions granted.
    public let permissions: Set<FeedPermission>
    /// Glob patterns of feed names (`*`, `?`, `[...]`), any of which matches.
    public let patterns: [String]

    /// Parses `PERMISSION[,PERMISSION...] [PATTERN...]` (no pattern: every feed); `all` stands
    /// for every permission. Nil and the problem when a word is not a permission.
    public static func parse(_ text: String) -> Result<FeedGrant, KeyringProblem> {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let first = words.first else {
            return .failure(KeyringProblem("an allow line needs permissions, e.g. allow = \"publish,reset cars*\""))
        }
        var permissions = Set<FeedPermission>()
        for word in first.split(separator: ",") {
            if word == "all" {
                permissions.formUnion(FeedPermission.allCases)
            } else if let permission = FeedPermission(rawValue: String(word)) {
                permissions.insert(permission)
            } else {
                return .failure(
                    KeyringProblem(
                        "\"\(word)\" is not a permission; allowed: \(FeedPermission.allCases.map(\.rawValue).joined(separator: ", ")), all"
                    ))
            }
        }
        return .success(
            FeedGrant(permissions: permissions, patterns: words.count > 1 ? Array(words.dropFirst()) : ["*"]))
    }

    /// Whether this grant gives `permission` on `feed`.
    public func allows(_ permission: FeedPermission, feed: String) -> Bool {
        permissions.contains(permission) && patterns.contains { FeedPattern.matches($0, feed) }
    }
}

/// A problem with one line of a key file.
public struct KeyringProblem: Error, Sendable, Equatable {
    /// What is wrong.
    public let message: String
    /// A problem from its message.
    public init(_ message: String) { self.message = message }
}
