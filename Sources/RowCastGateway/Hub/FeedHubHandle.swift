/// A stopped feed replica of a ``FeedGateway``, to wait until its thread has ended.
public struct FeedHubHandle: Sendable {
    /// The hub.
    let hub: FeedHub

    /// The feed it kept.
    public var feed: String { hub.feed }

    /// Returns when the replica's thread has ended (within the control timeout of its stop).
    public func ended() async { await hub.ended() }
}
