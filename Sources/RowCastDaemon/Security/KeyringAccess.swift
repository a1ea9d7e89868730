import RowCastEngine

/// The access check of a keyring: a client may do what the `allow` lines of its key file
/// grant; a client whose key file is gone (removed, then reloaded) may do nothing.
struct KeyringAccess: AccessCheck {
    /// The keyring in force.
    let keyring: ClientKeyring

    func allows(_ principal: String, _ permission: FeedPermission, feed: String?) -> Bool {
        guard let client = keyring.clientsByName[principal] else { return false }
        return client.allows(permission, feed: feed ?? "")
    }

    func feedQuota(of principal: String) -> Int? {
        keyring.clientsByName[principal]?.maxFeeds
    }

    func allowsEveryFeed(_ principal: String, _ permission: FeedPermission) -> Bool {
        keyring.clientsByName[principal]?.grants.contains {
            $0.permissions.contains(permission) && $0.patterns.contains("*")
        } ?? false
    }
}
