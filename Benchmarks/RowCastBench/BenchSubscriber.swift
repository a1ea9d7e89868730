import ZeroMQ

/// The benchmark's subscriber: a SUB socket on a daemon's publish endpoint, returned once a
/// heartbeat proved the subscription live (ZeroMQ's slow joiner would drop early messages).
enum BenchSubscriber {
    static func live(
        context: Context, publish endpoint: String, topics: [[UInt8]], timeoutMilliseconds: Int,
        curve: BenchCurve? = nil
    ) throws -> Socket {
        let subscriber = try Socket(context: context, type: .sub)
        try curve?.apply(to: subscriber)
        try subscriber.setOption(.linger, 0)
        try subscriber.setOption(.receiveHighWaterMark, 0)
        try subscriber.setOption(.receiveTimeout, timeoutMilliseconds)
        try subscriber.subscribe("heartbeat")
        for topic in topics { try subscriber.subscribe(topic) }
        try subscriber.connect(endpoint)
        guard try subscriber.receiveMultipart() != nil else { throw BenchFailure("no heartbeat from \(endpoint)") }
        return subscriber
    }
}
