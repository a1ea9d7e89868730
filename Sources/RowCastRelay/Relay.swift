import Dispatch
import Foundation
import RowCastSupport
import ZeroMQ

/// A running relay: ZeroMQ's XSUB/XPUB proxy for the publish side (``PublishProxy``) and a
/// read-only ROUTER/DEALER forwarder for the control side (``ControlForwarder``), each on a
/// thread of its own, so subscribers and replicas near the relay see rowcastd as if they were
/// connected to it (docs/OPERATIONS.md, "Relays").
///
/// ```swift
/// let relay = try Relay.start(configuration)
/// print(relay.publishEndpoint, relay.controlEndpoint)
/// // on SIGTERM: relay.stop()
/// try relay.wait()
/// ```
///
/// Thread-safe: ``stop()`` and ``wait()`` may be called from any thread.
public final class Relay: Sendable {
    /// What the relay was started with.
    public let configuration: RelayConfiguration
    /// The publish endpoint subscribers connect to (the real port of a `tcp://...:*` bind).
    public let publishEndpoint: String
    /// The control endpoint replicas send their requests to (the real port of a wildcard bind).
    public let controlEndpoint: String
    /// What the control side has done.
    public let counters: RelayCounters
    /// The context both halves' sockets live in (inproc names are per context).
    private let context: Context
    /// Whether ``stop()`` ran.
    private let stopped = LockedValue(false)
    /// The first error a half stopped with, if any.
    private let failure: LockedValue<RelayError?>
    /// Left by each half's thread when it ends.
    private let finished: DispatchGroup

    /// Where the proxy takes ``Proxy/terminate``.
    private static let steerEndpoint = "inproc://rowcast-relay-proxy-steer"
    /// Where the control forwarder takes its stop message.
    private static let stopEndpoint = "inproc://rowcast-relay-control-stop"

    private init(
        configuration: RelayConfiguration, publishEndpoint: String, controlEndpoint: String, counters: RelayCounters,
        context: Context, failure: LockedValue<RelayError?>, finished: DispatchGroup
    ) {
        self.configuration = configuration
        self.publishEndpoint = publishEndpoint
        self.controlEndpoint = controlEndpoint
        self.counters = counters
        self.context = context
        self.failure = failure
        self.finished = finished
    }

    /// Connects to rowcastd, binds the downstream endpoints and starts forwarding; returns once
    /// both halves are bound.
    ///
    /// - Throws: ``RelayError`` naming the endpoint that could not be connected or bound (a bad
    ///   endpoint, a port in use); nothing is left running then.
    public static func start(_ configuration: RelayConfiguration) throws(RelayError) -> Relay {
        let context: Context
        do {
            context = try Context()
        } catch {
            throw RelayError("rowcast relay: cannot create a ZeroMQ context: \(error.message)")
        }
        let counters = RelayCounters()
        let failure = LockedValue<RelayError?>(nil)
        let finished = DispatchGroup()
        let publish = launch("relay-publish", context: context, finished: finished, failure: failure) {
            () throws(RelayError) in
            let proxy = try PublishProxy(context: context, configuration: configuration, steerEndpoint: steerEndpoint)
            return (proxy.boundEndpoint, { () throws(RelayError) in try proxy.run() })
        }
        let control = launch("relay-control", context: context, finished: finished, failure: failure) {
            () throws(RelayError) in
            let forwarder = try ControlForwarder(
                context: context, configuration: configuration, stopEndpoint: stopEndpoint, counters: counters)
            return (forwarder.boundEndpoint, { () throws(RelayError) in try forwarder.run() })
        }
        let relay = Relay(
            configuration: configuration, publishEndpoint: publish ?? "", controlEndpoint: control ?? "",
            counters: counters, context: context, failure: failure, finished: finished)
        guard publish != nil, control != nil else {
            relay.stop()
            finished.wait()
            throw failure.withLock { $0 } ?? RelayError("rowcast relay: could not start")
        }
        return relay
    }

    /// Stops both halves (the proxy with ``Proxy/terminate``); returns at once. Calling it
    /// again does nothing.
    public func stop() {
        let first = stopped.withLock { wasStopped in
            defer { wasStopped = true }
            return !wasStopped
        }
        guard first else { return }
        for endpoint in [Self.steerEndpoint, Self.stopEndpoint] {
            // A half that already ended has closed its socket: the send then times out.
            guard let socket = try? Socket(context: context, type: .pair) else { continue }
            try? socket.setOption(.linger, 1000)
            try? socket.setOption(.sendTimeout, 1000)
            if (try? socket.connect(endpoint)) != nil {
                _ = try? socket.send([Proxy.terminate])
            }
            socket.close()
        }
    }

    /// Waits until both halves have ended (after ``stop()``, or when one fails; a failing half
    /// stops the other), then terminates the relay's context: when it returns, the bound
    /// endpoints are free to bind again. (Waiting for the relay's last reference to go is not
    /// enough: a half's thread may still hold the context for a moment after it has ended.)
    ///
    /// - Throws: the error the first failing half stopped with.
    public func wait() throws(RelayError) {
        finished.wait()
        context.terminate()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Whether either half has ended on an error (the relay is then stopping).
    public var hasFailed: Bool { failure.withLock { $0 != nil } }

    /// Starts a thread named `name` that builds one half with `make` (its bound endpoint and
    /// its loop) and runs the loop; returns the bound endpoint once built, or nil when building
    /// failed (the error is in `failure`). A loop that fails records its error and shuts the
    /// context down, which ends the other half.
    private static func launch(
        _ name: String, context: Context, finished: DispatchGroup, failure: LockedValue<RelayError?>,
        make: @escaping @Sendable () throws(RelayError) -> (String, () throws(RelayError) -> Void)
    ) -> String? {
        let bound = LockedValue<String?>(nil)
        let built = DispatchSemaphore(value: 0)
        finished.enter()
        let thread = Thread {
            defer { finished.leave() }
            let loop: () throws(RelayError) -> Void
            do throws(RelayError) {
                let (endpoint, run) = try make()
                bound.withLock { $0 = endpoint }
                loop = run
                built.signal()
            } catch {
                failure.withLock { $0 = $0 ?? error }
                built.signal()
                return
            }
            do throws(RelayError) {
                try loop()
            } catch {
                failure.withLock { $0 = $0 ?? error }
                context.shutdown()
            }
        }
        thread.name = name
        thread.start()
        built.wait()
        return bound.withLock { $0 }
    }
}
