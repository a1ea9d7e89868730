import RowCastSupport

/// How a hosted plugin runs batches: a batch is sent whole, its results are read in chunks
/// as the engine asks for them, and a fault costs the call in progress only: the host is
/// restarted and the calls it had not answered go to the new one. A plugin that faults again
/// and again is paused (`CrashLoopBreaker`): meanwhile its calls are answered
/// `plugin_unavailable` without a host.
extension HostedPlugin {
    /// Sends `calls` to the host and returns the batch, whose results are read as they are
    /// asked for (``HostBatch/result(at:)``). A host works on one batch at a time: while one is
    /// outstanding, the new batch waits in `queued` and is sent when the one before it ends,
    /// so a loop that moved on from a batch stuck on a hanging call does not wait for it here.
    func start(_ calls: [HostCall]) -> HostBatch {
        let batch = HostBatch(calls: calls, plugin: self)
        if let active, !active.isComplete {
            queued.append(batch)
            return batch
        }
        active = batch
        dispatch(Array(calls.indices), of: batch)
        return batch
    }

    /// The batch in progress ended (every call answered, faulted or refused): the first queued
    /// batch is sent.
    func activeBatchEnded() {
        active = nil
        while active == nil, !queued.isEmpty {
            let next = queued.removeFirst()
            guard !next.isComplete else { continue }
            active = next
            dispatch(next.calls.indices.filter { next.outcomes[$0] == nil }, of: next)
        }
    }

    /// Reads the host's next answer for `batch`: a chunk of results, or a fault (after which
    /// the calls not answered are sent to a restarted host). Without `waiting`, it takes only
    /// an answer that already arrived and returns false when there is none.
    @discardableResult
    func advance(_ batch: HostBatch, waiting: Bool = true) -> Bool {
        guard !batch.isComplete else { return false }
        if let active, active !== batch, queued.contains(where: { $0 === batch }) {
            // Queued behind the batch in progress: its results come after that one's.
            return advance(active, waiting: waiting)
        }
        if startingHost != nil, active === batch { return sendToStartedHost(batch, waiting: waiting) }
        guard let host = process, active === batch, batch.answered < batch.inFlight.count else {
            // Nothing outstanding (a finished batch was replaced): send what is unknown again.
            let unknown = batch.calls.indices.filter { batch.outcomes[$0] == nil }
            batch.inFlight = []
            batch.answered = 0
            active = batch
            dispatch(unknown, of: batch)
            return true
        }
        guard var event = host.receive(timeout: callTimeout, waiting: waiting) else { return false }
        if case .results(let chunk) = event, batch.answered + chunk.count > batch.inFlight.count {
            event = host.abandon(because: "\(batch.answered + chunk.count) results for \(batch.inFlight.count) calls")
        }
        switch event {
        case .results(let chunk):
            for result in chunk {
                batch.resolve(batch.inFlight[batch.answered], .success(result))
                batch.answered += 1
            }
            statistics.rendered += chunk.count
            if !chunk.isEmpty { breaker.answered() }
            if batch.answered == batch.inFlight.count {
                if batch.isComplete { observer?.rendered(name, ContinuousClock.now - batch.started, batch.calls.count) }
                batch.inFlight = []
                batch.answered = 0
                activeBatchEnded()
            }
        case .fault(let fault, let index):
            recordFault(fault, at: index, of: batch)
        }
        return true
    }

    /// What to wait on before asking `batch`'s host again: its descriptors and how long the
    /// call in progress may still take (nil when the batch has nothing outstanding on a host).
    func renderWait(for batch: HostBatch) -> RenderWait? {
        if let active, active !== batch, !batch.isComplete, queued.contains(where: { $0 === batch }) {
            return renderWait(for: active)
        }
        if let starting = startingHost, active === batch, !batch.isComplete {
            return RenderWait(descriptors: starting.descriptors, within: starting.remainingStart)
        }
        guard !batch.isComplete, let host = process, active === batch, batch.answered < batch.inFlight.count else {
            return nil
        }
        return RenderWait(descriptors: host.descriptors, within: host.remaining(of: callTimeout))
    }

    /// How long one call may run before its host is killed.
    var callTimeout: Duration { .milliseconds(settings.callTimeoutMilliseconds) }

    /// Notes a fault of the host while it worked on `batch` (`index`: the call of the batch in
    /// progress, if known), gives that call its fault, and sends the rest to a new host.
    private func recordFault(_ fault: HostFault, at index: Int?, of batch: HostBatch) {
        process = nil
        statistics.faults += 1
        observer?.faulted(name, fault.kind)
        statistics.state = .restarting
        // Calls the host finished before the one it died on count as answered, although the
        // chunk with their results died with it (they are sent again): the faults are not in a
        // row. Without this, poison items among good ones in one batch paused the plugin.
        if let index, index > batch.answered, index < batch.inFlight.count { breaker.answered() }
        if let pause = breaker.faulted(at: .now) {
            statistics.state = .backoff
            logger.warning(
                "plugin paused after faults in a row; its calls are answered plugin_unavailable meanwhile",
                metadata: [
                    "plugin": "\(name)", "file": "\(file)", "pause_ms": "\(pause.wholeMilliseconds)",
                    "last_fault": "\(fault.reason)",
                ])
        }
        var pending = batch.unanswered
        if let index, index >= batch.answered, index < batch.inFlight.count {
            let culprit = batch.inFlight[index]
            pending.remove(at: index - batch.answered)
            batch.resolve(culprit, .failure(fault))
            statistics.lastFault = HostStatistics.Fault(
                code: fault.kind.rawValue, reason: fault.reason, item: Self.itemID(batch.calls[culprit].input),
                at: Self.nowMilliseconds())
        } else {
            // The host died between calls: send everything again once, then give up on the batch.
            batch.blindFaults += 1
            statistics.lastFault = HostStatistics.Fault(
                code: fault.kind.rawValue, reason: fault.reason, item: nil, at: Self.nowMilliseconds())
            if batch.blindFaults > 1 {
                for call in pending { batch.resolve(call, .failure(fault)) }
                pending = []
            }
        }
        batch.inFlight = []
        batch.answered = 0
        dispatch(pending, of: batch)
    }

    /// Sends the calls in flight of `batch` to the host being started, once it said hello;
    /// returns whether anything changed (the hello came, or the start failed).
    private func sendToStartedHost(_ batch: HostBatch, waiting: Bool) -> Bool {
        let host: PluginHostProcess
        do {
            guard let started = try takeStartedHost(waiting: waiting) else { return false }
            host = started
        } catch {
            startingHost = nil
            let pending = batch.inFlight
            batch.inFlight = []
            failToStart(pending, of: batch, error)
            return true
        }
        let calls =
            batch.inFlight.count == batch.calls.count ? batch.calls[...] : batch.inFlight.map { batch.calls[$0] }[...]
        if let fault = host.send(calls) { recordFault(fault, at: nil, of: batch) }
        return true
    }

    /// Fails the calls `pending` of `batch`: no host could be started for them.
    private func failToStart(_ pending: [Int], of batch: HostBatch, _ error: PluginRefusal) {
        statistics.state = .restarting
        let fault = HostFault(.crashed, "the plugin host could not be restarted: \(error.reason)")
        for call in pending { batch.resolve(call, .failure(fault)) }
        if active === batch { activeBatchEnded() }
    }

    /// Sends the calls `pending` of `batch` to the running host, or starts a new one for them.
    private func dispatch(_ pending: [Int], of batch: HostBatch) {
        guard !pending.isEmpty else {
            if active === batch { activeBatchEnded() }
            return
        }
        if let pause = breaker.remainingPause(at: .now) {
            // `recordFault` set the state to `.backoff` when the pause began.
            let fault = HostFault(
                .unavailable,
                "plugin \(name) is paused for \(pause.wholeMilliseconds) ms more: its host crashed or hung on \(CrashLoopBreaker.faultsToPause) calls in a row (last: \(statistics.lastFault?.reason ?? "unknown")); send the request again later; `rowcast plugins` shows the faults"
            )
            for call in pending { batch.resolve(call, .failure(fault)) }
            if active === batch { activeBatchEnded() }
            return
        }
        guard let host = process else {
            // A new host (or the one starting): the calls go to it once it said hello
            // (`sendToStartedHost`), so that the loop does not wait for its start.
            if startingHost == nil {
                do {
                    _ = try launchHost()
                } catch {
                    failToStart(pending, of: batch, error)
                    return
                }
            }
            batch.inFlight = pending
            batch.answered = 0
            return
        }
        // `pending` lists calls of the batch in order, each once: as many as the batch has is
        // all of them, sent from the batch's own array (the usual first send) instead of a copy.
        let calls = pending.count == batch.calls.count ? batch.calls[...] : pending.map { batch.calls[$0] }[...]
        if let fault = host.send(calls) {
            batch.inFlight = pending
            batch.answered = 0
            recordFault(fault, at: nil, of: batch)
            return
        }
        batch.inFlight = pending
        batch.answered = 0
    }
}
