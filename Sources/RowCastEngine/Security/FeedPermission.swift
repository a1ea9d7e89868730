/// What a client may do, on the feeds whose names match a pattern (docs/OPERATIONS.md, "Who
/// can connect").
public enum FeedPermission: String, Sendable, CaseIterable, Comparable {
    /// Subscribe to a feed's deltas and events, and ask for its snapshot or history.
    case read
    /// Upsert and delete items, declare and delete sections.
    case publish
    /// Replace, empty or drop a whole feed.
    case reset
    /// Run a row action (`select`).
    case select
    /// Reload, status, plugins, quarantine: the daemon itself, not one feed.
    case admin
    /// Run a select as a user the request names (`"user"`), who then is the action's
    /// requester: for a gateway that verified the user's token.
    case actAs = "act_as"

    /// In declaration order.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

extension Request {
    /// The permission this request needs, on `feed` (admin requests name no feed).
    public var requiredPermission: FeedPermission {
        switch operation {
        case .upsert, .delete, .section, .deleteSection: return .publish
        case .reset, .resetBegin, .resetAppend, .resetCommit, .drop: return .reset
        case .snapshot, .since, .events, .locate: return .read
        case .select: return .select
        case .status, .plugins, .reload, .quarantine: return .admin
        }
    }
}
