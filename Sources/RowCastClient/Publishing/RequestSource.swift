import RowCastJSON

/// Where ``AckedPublisher/publish(from:onResult:)`` takes its requests, one at a time: an array,
/// or a stream (standard input) whose next request may not have arrived yet.
public protocol RequestSource {
    /// The next request, nil at the end. A request that cannot be read is `.failure` (reported
    /// as that request's result; the source goes on with the next one).
    mutating func next() -> Result<JSONValue, RowCastClientError>?
    /// Whether `next()` would wait for input now: the publisher then first waits for the
    /// answers to what it sent, so each is reported while the producer pauses.
    func wouldWait() -> Bool
    /// Whether the source ends by itself (an array): after the daemon is given up, the rest
    /// is read and counted as not sent. A stream is read on only while it would not wait.
    var isBounded: Bool { get }
}

/// The requests of an array, in order.
public struct ArrayRequestSource: RequestSource {
    private let requests: [JSONValue]
    private var index = 0

    /// A source of `requests`.
    public init(_ requests: [JSONValue]) {
        self.requests = requests
    }

    /// How many requests the array holds.
    public var count: Int { requests.count }

    /// The next request of the array.
    public mutating func next() -> Result<JSONValue, RowCastClientError>? {
        guard index < requests.count else { return nil }
        defer { index += 1 }
        return .success(requests[index])
    }

    /// Never: the array is all there.
    public func wouldWait() -> Bool { false }

    /// Always.
    public var isBounded: Bool { true }
}
