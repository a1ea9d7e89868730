import Logging
import RowCastCells
import RowCastEngine
import RowCastPluginHosting
import RowCastWire
import RowCastJSON
import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// Reload (SIGHUP, or a `reload` request): read the configuration again, rescan the plugin
/// directories, and switch over only when both worked. New plugins register, changed plugin
/// files take over their types, and the items concerned are rendered again and published as
/// ordinary deltas. A reload that fails keeps the running configuration and plugins and says
/// why. Settings that need a restart (endpoints, state, high-water marks) keep their values,
/// with a warning naming them. What is read is one `ReloadDecision`; several engine loops
/// apply the one their group decided (`SharedReload`).
extension Daemon {
    /// Reloads and returns the members of the `reload` reply, or the error that made the
    /// reload fail (code `reload_failed`). A socket error while publishing is thrown.
    func reload(engine: Engine, publish: Socket) throws -> Result<JSONObject, RowCastError> {
        send(.reloading(monotonicMicroseconds: Self.monotonicMicroseconds()), what: "RELOADING=1")
        var metadata: Logger.Metadata = ["config": "\(environment.configurationFile ?? "-")"]
        if let slot { metadata["loop"] = "\(slot.index)" }
        logger.info("reloading configuration and plugins", metadata: metadata)
        let decision =
            slot?.reload.decision()
            ?? ReloadDecision(
                generation: (lastReload?.generation ?? 0) + 1, running: configuration, environment: environment,
                logger: logger)
        let outcome: Result<JSONObject, RowCastError>
        if let lastReload, lastReload.generation == decision.generation {
            // A loop asked twice for one reload (a SIGHUP and a request at once) applied it once.
            outcome = lastReload.outcome
        } else {
            outcome = try prepareAndApplyReload(decision, engine: engine, publish: publish)
            lastReload = (decision.generation, outcome)
            slot?.reload.applied(
                decision, loop: slot?.index ?? 0, refusals: (try? outcome.get())?["refusals"]?.arrayValue ?? [])
        }
        // Of several loops the first says how it went: every loop applied the same decision.
        let logsOutcome = (slot?.index ?? 0) == 0
        switch outcome {
        case .success(let members):
            reloadFailure = nil
            if logsOutcome {
                logger.info(
                    "reloaded",
                    metadata: [
                        "plugins": "\(renderer?.pluginCount ?? 0)",
                        "loaded": "\(members["loaded"].map { "\($0)" } ?? "[]")",
                        "applied": "\(members["applied"].map { "\($0)" } ?? "[]")",
                    ])
            }
        case .failure(let error):
            reloadFailure = error.message
            if logsOutcome {
                logger.error(
                    "reload failed; keeping the running configuration and plugins",
                    metadata: ["reason": "\(error.message)"])
            }
        }
        send(NotifyMessage.ready.adding(.status(currentStatus(engine: engine))), what: "READY=1")
        return outcome
    }

    /// Answers a `reload` request that the engine deferred.
    func answerReload(
        _ deferred: DeferredRequest, route: ReplyRoute, engine: Engine, control: Socket, publish: Socket
    ) throws {
        let request = deferred.request
        let body: [UInt8]
        switch try reload(engine: engine, publish: publish) {
        case .success(let members):
            body = ReplyBuilder.success(op: request.op, members: members, req: request.req, client: request.client)
        case .failure(let error):
            body = ReplyBuilder.failure(error, op: request.op, req: request.req, client: request.client)
        }
        sendReply(route.replyFrames(body), on: control, engine: engine)
    }

    /// Applies `decision`: the settings a reload changes, the plugins and cells it lists (each
    /// loop starts its own plugin hosts), the client keys; returns the reply's members.
    private func prepareAndApplyReload(
        _ decision: ReloadDecision, engine: Engine, publish: Socket
    ) throws -> Result<JSONObject, RowCastError> {
        let plan: ReloadDecision.Plan
        switch decision.plan {
        case .success(let decided): plan = decided
        case .failure(let error): return .failure(error)
        }
        let next = plan.configuration
        let applied = ConfigurationSchema.settings.filter { $0.read(configuration) != $0.read(next) }.map(\.key)

        // A refused file never blocks the others: it keeps its previous version, if any, and
        // the refusal is in the reply and in `plugins`.
        let previous = renderer
        let candidate = makeRenderer(plugins: plan.plugins, cells: plan.cells, previous: previous)
        try applyLive(next, engine: engine)
        renderer = candidate
        observePlugins(of: candidate)
        // Of several loops, the first tells the node's coordinator (they load the same plugins).
        if (slot?.index ?? 0) == 0 { (cluster ?? slot?.cluster)?.pluginsChanged(pluginSummary()) }
        // Through the durable engine: the re-rendered feeds' new seqs are committed before their deltas go out.
        let seqs = engine.feeds.mapValues(\.seq)
        try publishAll(durable!.replaceRenderer(candidate), on: publish)
        let rerendered = engine.allPositions.filter { seqs[$0.feed] != $0.seq }.sorted { $0.feed < $1.feed }
        positions.record(rerendered)
        // The hosts of replaced or removed plugins exit only now: nothing routes to them any more.
        (Self.pluginRenderer(of: previous) as? HostedRenderer)?.retire(
            replacedBy: Self.pluginRenderer(of: candidate) as? HostedRenderer)
        let loaded = candidate.loadedPlugins.filter { plugin in
            !(previous?.loadedPlugins.contains { $0 === plugin } ?? false)
        }
        var members = JSONObject()
        members.append(key: "config", value: environment.configurationFile.map(JSONValue.string) ?? .null)
        members.append(key: "plugins", value: .number(Double(candidate.pluginCount)))
        members.append(
            key: "loaded",
            value: .array(
                loaded.map { ["name": .string($0.name), "version": .string($0.version), "file": .string($0.file)] }))
        members.append(
            key: "refusals",
            value: .array(
                candidate.refusals.map {
                    ["file": .string($0.file), "code": .string($0.code.rawValue), "reason": .string($0.reason)]
                }))
        // Cells count beside plugins: a reload after a cell file changed says what it took in.
        let cells = (candidate as? DeclarativeRenderer)?.catalog.definitions ?? []
        let previousCells = Set(
            (previous as? DeclarativeRenderer)?.catalog.definitions.map(\.rendererIdentity) ?? [])
        members.append(key: "cells", value: .number(Double(cells.count)))
        members.append(
            key: "loadedCells",
            value: .array(
                cells.filter { !previousCells.contains($0.rendererIdentity) }.map {
                    ["cell": .string($0.cell), "file": .string($0.file), "line": .number(Double($0.line))]
                }))
        if let cellRefusals = candidate.pluginsDescription()["cell_refusals"] {
            members.append(key: "cell_refusals", value: cellRefusals)
        }
        members.append(
            key: "rerendered",
            value: .array(rerendered.map { ["feed": .string($0.feed), "seq": .number(Double($0.seq))] }))
        members.append(key: "applied", value: .array(applied.map(JSONValue.string)))
        members.append(key: "restartRequired", value: .array(plan.restartRequired.map(JSONValue.string)))
        let curve = reloadKeyring(plan.keyring, engine: engine)
        if curve != .null { members.append(key: "curve", value: curve) }
        return .success(members)
    }

    /// Puts the settings a reload may change into force.
    private func applyLive(_ next: DaemonConfiguration, engine: Engine) throws {
        if next.maximumMessageBytes != configuration.maximumMessageBytes {
            engine.decoder.maximumMessageBytes = next.maximumMessageBytes
            // Connections made from now on get the new transport limit; open ones keep theirs.
            try ingest?.setOption(.maxMessageSize, Int64(next.hardMessageBytes))
            try control?.setOption(.maxMessageSize, Int64(next.hardMessageBytes))
            engine.statusMembers["limits"] = Self.limitsMember(next)
        }
        if next.stateLimits != configuration.stateLimits {
            engine.limits = next.stateLimits
            engine.statusMembers["limits"] = Self.limitsMember(next)
        }
        if next.lingerMilliseconds != configuration.lingerMilliseconds {
            try control?.setOption(.linger, next.lingerMilliseconds)
            try publish?.setOption(.linger, next.lingerMilliseconds)
        }
        durable?.ingestCommitInterval = .microseconds(next.commitIntervalMicroseconds)
        environment.logLevel?.level = next.logLevel
        environment.health?.setStall(.milliseconds(next.healthStallMilliseconds))
        configuration = next
        loop.settings = LoopStateMachine.Settings(next, slot: slot)
    }

    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}
