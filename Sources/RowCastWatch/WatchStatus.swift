/// What the watch view's two bottom lines say besides the replica itself: the delta rate,
/// how often the replica was reloaded, and the find prompt or the latest message.
public struct WatchStatus: Sendable, Equatable {
    /// Deltas applied per second lately.
    public var rate: Double
    /// How many times the replica was reloaded because a delta did not fit.
    public var resyncs: Int
    /// The row id typed so far after `/`, while finding; `nil` otherwise.
    public var prompt: String?
    /// A message for the user (a row not found, a resync), shown until the next key.
    public var message: String?

    /// A status with these values.
    public init(rate: Double = 0, resyncs: Int = 0, prompt: String? = nil, message: String? = nil) {
        self.rate = rate
        self.resyncs = resyncs
        self.prompt = prompt
        self.message = message
    }
}
