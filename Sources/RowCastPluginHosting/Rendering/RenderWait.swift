/// What the loop waits on while a renderer in other processes works on a batch: descriptors
/// that turn readable when it may have answered, and how long it may wait before asking again
/// anyway (a plugin host's call deadline, checked on each ask).
public struct RenderWait: Equatable, Sendable {
    /// The descriptors to poll for readability.
    public var descriptors: [Int32]
    /// The longest wait before asking again.
    public var within: Duration

    /// A wait on `descriptors` for at most `within`.
    public init(descriptors: [Int32], within: Duration) {
        self.descriptors = descriptors
        self.within = within
    }

    /// One wait covering both: every descriptor, the shorter bound.
    public func merged(with other: RenderWait?) -> RenderWait {
        guard let other else { return self }
        return RenderWait(descriptors: descriptors + other.descriptors, within: min(within, other.within))
    }
}
