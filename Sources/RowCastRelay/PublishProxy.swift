import RowCastClient
import ZeroMQ

/// The publish half of a relay: an XSUB connected to rowcastd's publish endpoint and an XPUB
/// bound for subscribers, joined by `zmq_proxy_steerable` (``Proxy``), so subscriptions travel
/// upstream and deltas, positions, events and heartbeats travel down byte for byte.
///
/// The XPUB is verbose: every subscription a subscriber sends (not only the first of a topic)
/// reaches rowcastd, so each subscriber that subscribes to `rows.<feed>\0` makes rowcastd
/// publish that feed's position at once (PROTOCOL.md, "Positions"), as it would directly.
///
/// Built and run on one thread (the sockets belong to it); not `Sendable`.
final class PublishProxy {
    /// The upstream side, connected to rowcastd.
    private let xsub: Socket
    /// The downstream side, bound for subscribers.
    private let xpub: Socket
    /// Where ``Proxy/terminate`` arrives to stop the proxy.
    private let steer: Socket
    /// The endpoint the XPUB is bound to, with the port the system chose.
    let boundEndpoint: String

    /// Opens, connects and binds the sockets; `steerEndpoint` is the inproc address ``Relay``
    /// sends ``Proxy/terminate`` to.
    init(context: Context, configuration: RelayConfiguration, steerEndpoint: String) throws(RelayError) {
        let upstream = configuration.upstreamPublish
        do {
            xsub = try Socket(context: context, type: .xsub)
            try xsub.setOption(.linger, 0)
            try xsub.setOption(.receiveHighWaterMark, configuration.highWaterMark)
            if let curve = configuration.curve { try curve.apply(to: xsub) }
            try xsub.connect(upstream)
        } catch {
            throw .socket(error, "connect its XSUB to rowcastd's publish endpoint", upstream)
        }
        for other in configuration.otherUpstreamPublishes {
            do {
                try xsub.connect(other)
            } catch {
                throw .socket(error, "connect its XSUB to a cluster node's publish endpoint", other)
            }
        }
        do {
            xpub = try Socket(context: context, type: .xpub)
            try xpub.setOption(.linger, 0)
            try xpub.setOption(.xpubVerbose, true)
            try xpub.setOption(.sendHighWaterMark, configuration.highWaterMark)
            try xpub.bind(configuration.publish)
            boundEndpoint = try xpub.lastEndpoint
        } catch {
            throw .socket(error, "bind its publish endpoint (XPUB) to", configuration.publish)
        }
        do {
            steer = try Socket(context: context, type: .pair)
            try steer.setOption(.linger, 0)
            try steer.bind(steerEndpoint)
        } catch {
            throw .socket(error, "bind its stop socket to", steerEndpoint)
        }
    }

    /// Runs until ``Proxy/terminate`` arrives or the context is shut down, then closes the sockets.
    func run() throws(RelayError) {
        defer {
            xsub.close()
            xpub.close()
            steer.close()
        }
        do {
            try Proxy.run(frontend: xsub, backend: xpub, control: steer)
        } catch let error where error.isTerminated {
            return
        } catch {
            throw RelayError("rowcast relay: the publish proxy stopped: \(error)")
        }
    }
}

@available(*, unavailable)
extension PublishProxy: Sendable {}
