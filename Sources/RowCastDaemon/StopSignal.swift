import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the daemon loop is asked to do by signals or by code: stop, or reload plugins.
/// `Sendable` because its state is two atomics; the loop polls it every pass.
public final class StopSignal: Sendable {
    private let stopRequested = Atomic<Int>(0)
    private let reloadRequested = Atomic<Bool>(false)

    /// A signal with nothing requested.
    public init() {}

    /// How many times a stop was asked for (a second request means "now").
    public var stopCount: Int { stopRequested.load(ordering: .acquiring) }

    /// Whether a stop was asked for.
    public var isStopRequested: Bool { stopCount > 0 }

    /// Asks the loop to stop after the batch in hand.
    public func requestStop() { stopRequested.add(1, ordering: .releasing) }

    /// Asks the loop to reload plugins at the end of the pass.
    public func requestReload() { reloadRequested.store(true, ordering: .releasing) }

    /// Takes a pending reload request, if any.
    public func takeReloadRequest() -> Bool { reloadRequested.exchange(false, ordering: .acquiringAndReleasing) }

    /// Routes SIGTERM and SIGINT to `requestStop` (a second one exits at once with status 1)
    /// and SIGHUP to `requestReload`, for as long as the returned handlers are kept.
    public func installSignalHandlers() -> SignalHandlers {
        let queue = DispatchQueue(label: "rowcastd.signals")
        var installed: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in
                requestStop()
                if stopCount > 1 { exit(1) }
            }
            source.resume()
            installed.append(source)
        }
        signal(SIGHUP, SIG_IGN)
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
        hangup.setEventHandler { [self] in requestReload() }
        hangup.resume()
        installed.append(hangup)
        return SignalHandlers(sources: installed)
    }
}

/// The signal sources installed by `StopSignal.installSignalHandlers`; signals are handled
/// while this is alive. Not `Sendable`: keep it where it was made.
public final class SignalHandlers {
    private let sources: [any DispatchSourceSignal]

    init(sources: [any DispatchSourceSignal]) { self.sources = sources }

    deinit { sources.forEach { $0.cancel() } }
}
