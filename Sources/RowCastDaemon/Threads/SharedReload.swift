import Logging
import RowCastJSON
import RowCastSupport
import Synchronization

/// The reload the group decided, for several engine loops (docs/OPERATIONS.md, "Engine
/// threads"). Each reload asked for (SIGHUP, which the group passes on, or a `reload` request,
/// which the front hands every loop) is counted here first; the first loop to reload reads the
/// one `ReloadDecision` for it and every other loop takes that same decision, so the loops
/// apply one configuration, one keyring and one list of plugin and cell files. Once every loop
/// has applied it, the front and the publish proxy check with its client keys (`SharedCurve`),
/// and a plugin file that some loops refused and others loaded (a plugin host that failed to
/// start) is logged, naming the loops.
final class SharedReload: Sendable {
    private let running: DaemonConfiguration
    private let environment: DaemonEnvironment
    private let logger: Logger
    private let loops: Int
    private let curve: SharedCurve?
    /// Reloads asked for so far.
    private let requested = Atomic<Int>(0)
    /// The newest decision read.
    private let decided: LockedValue<ReloadDecision?>
    /// The loops that applied the newest decision applied so far, with the plugin files each
    /// refused (the `refusals` of its `reload` reply).
    private let reports: LockedValue<(generation: Int, refusals: [Int: [JSONValue]])>

    /// The reloads of `loops` loops started with `running`; `environment` reads the
    /// configuration again; `curve` is where the keys a reload read go once every loop applied
    /// them (nil with CURVE off).
    init(
        running: DaemonConfiguration, environment: DaemonEnvironment, logger: Logger, loops: Int, curve: SharedCurve?
    ) {
        self.running = running
        self.environment = environment
        self.logger = logger
        self.loops = loops
        self.curve = curve
        decided = LockedValue(nil)
        reports = LockedValue((0, [:]))
    }

    /// Counts a reload asked for; call it before any loop can see the request.
    func request() { requested.add(1, ordering: .acquiringAndReleasing) }

    /// The decision for the reloads asked for so far: the one already read when no reload was
    /// asked for since, else one read now (the other loops wait for it and take the same).
    func decision() -> ReloadDecision {
        decided.withLock { decided in
            let generation = requested.load(ordering: .acquiring)
            if let decision = decided, decision.generation == generation { return decision }
            let decision = ReloadDecision(
                generation: generation, running: running, environment: environment, logger: logger)
            decided = decision
            return decision
        }
    }

    /// Loop `loop` applied `decision` and refused the plugin files `refusals` lists. When every
    /// loop has applied the newest decision, its client keys go to the front and the proxy, and
    /// the plugin files some loops refused and others did not are logged.
    func applied(_ decision: ReloadDecision, loop: Int, refusals: [JSONValue]) {
        let complete = reports.withLock { reports -> [[JSONValue]]? in
            if decision.generation > reports.generation { reports = (decision.generation, [:]) }
            guard decision.generation == reports.generation else { return nil }
            reports.refusals[loop] = refusals
            guard reports.refusals.count == loops else { return nil }
            return (0..<loops).map { reports.refusals[$0] ?? [] }
        }
        guard let complete else { return }
        if case .success(let plan) = decision.plan, let keyring = plan.keyring { curve?.keyring = keyring }
        let partial = FanOutReplies.refusedInSomeLoops(complete)
        guard !partial.isEmpty else { return }
        logger.error(
            "reload: plugin files refused by some engine loops only; those loops keep the version they had, if any (reload again to retry)",
            metadata: [
                "refused": .array(
                    partial.map { refusal in
                        .string(
                            "loop \(refusal["loop"]?.numberValue.map { Int($0) } ?? -1): \(refusal["file"]?.stringValue ?? "") (\(refusal["reason"]?.stringValue ?? ""))"
                        )
                    })
            ])
    }
}
