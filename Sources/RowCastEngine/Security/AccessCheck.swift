import RowCastWire

/// Decides whether an authenticated client (the name its CURVE key file gives it, which ZeroMQ
/// delivers as the connection's User-Id) may do what a request asks. The daemon sets it on the
/// engine when CURVE is on; messages without a principal (local `ipc://` connections, or no
/// CURVE at all) are not checked.
public protocol AccessCheck {
    /// Whether `principal` has `permission` on `feed` (nil for `admin` requests).
    func allows(_ principal: String, _ permission: FeedPermission, feed: String?) -> Bool
    /// Whether `principal` has `permission` on every feed there is or will be (a grant on `*`).
    func allowsEveryFeed(_ principal: String, _ permission: FeedPermission) -> Bool
    /// The most feeds `principal` may have created and not dropped (its key file's
    /// `max_feeds`), or nil for no quota of its own.
    func feedQuota(of principal: String) -> Int?
}

extension AccessCheck {
    /// No quotas: checks that only grant permissions.
    public func feedQuota(of principal: String) -> Int? { nil }

    /// The `forbidden` error for `request` from `principal`, or nil when it is allowed.
    public func refusal(of request: Request, from principal: String) -> RowCastError? {
        let permission = request.requiredPermission
        if allows(principal, permission, feed: request.feed) {
            guard case .select(_, _, _, let user?) = request.operation, !allows(principal, .actAs, feed: request.feed)
            else { return nil }
            let feed = request.feed ?? ""
            return RowCastError(
                .forbidden,
                "select: client \"\(principal)\" may not act as user \"\(user)\" on feed \"\(feed)\"; nothing was run (its key file needs allow = \"act_as \(feed)\" or a pattern that matches, or send no \"user\")",
                feed: request.feed)
        }
        if permission == .admin {
            return RowCastError(
                .forbidden,
                "\(request.op): client \"\(principal)\" lacks the admin permission; nothing was done (its key file needs allow = \"admin\")"
            )
        }
        let feed = request.feed ?? ""
        return RowCastError(
            .forbidden,
            "\(request.op): client \"\(principal)\" lacks the \(permission.rawValue) permission on feed \"\(feed)\"; nothing was applied (its key file needs allow = \"\(permission.rawValue) \(feed)\" or a pattern that matches)",
            feed: request.feed)
    }
}
