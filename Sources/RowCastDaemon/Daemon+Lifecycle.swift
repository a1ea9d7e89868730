import Logging
import RowCastEngine

#if canImport(Glibc)
import Glibc
#endif

/// What the loop tells the world about itself: the ready line, and systemd's READY=1,
/// STATUS=, WATCHDOG=1 and STOPPING=1. All of it is sent from the loop thread, so a stuck loop
/// stops the watchdog pings. Of several engine loops the first speaks for all: WATCHDOG=1 only
/// while every loop passes, STATUS= with the sums of every loop's counts (`LoopTotals`).
extension Daemon {
    /// Every socket is bound and the state is loaded: `/healthz` says so first, then the ready
    /// line and READY=1, so whoever waited for either finds the service healthy.
    func announceReady(engine: Engine) {
        environment.health?.enter(.running)
        environment.announceReady(readyLine)
        let status = currentStatus(engine: engine)
        send(NotifyMessage.ready.adding(.mainPID(getpid())).adding(.status(status)), what: "READY=1")
        logger.info(
            "rowcastd ready",
            metadata: [
                "ingest": "\(boundEndpoints.ingest)", "control": "\(boundEndpoints.control)",
                "publish": "\(boundEndpoints.publish)",
                "plugins": "\(renderer?.pluginCount ?? 0)", "config": "\(environment.configurationFile ?? "-")",
                "http": "\(environment.httpAddress ?? "-")",
            ])
        keepAlive(engine: engine)
    }

    /// While the state loads: EXTEND_TIMEOUT_USEC=, STATUS= and WATCHDOG=1 when due
    /// (`LoadProgress`).
    func reportLoad(_ progress: inout LoadProgress, done: Int, total: Int) {
        guard environment.notifier.isEnabled else { return }
        let now = ContinuousClock.now
        guard
            let message = progress.report(
                done: done, total: total, at: now, watchdogDue: { watchdog?.isDue(at: now) == true })
        else { return }
        send(message, what: "EXTEND_TIMEOUT_USEC")
    }

    /// Once per pass: WATCHDOG=1 when due, STATUS= when the summary changed.
    func keepAlive(engine: Engine) {
        let now = ContinuousClock.now
        let passedAt = passClock?.tick()
        if let metrics {
            if let publishMonitor { metrics.drain(publishMonitor) }
            metrics.flush(engine: engine, now: now)
        }
        if watchdog?.isDue(at: now) == true {
            // Of several loops, the first pings only when every loop passed since its last
            // check: one hung loop stops the pings, and systemd restarts the daemon.
            let everyLoopPasses =
                slot == nil || environment.health?.everyLoopPassed(since: watchdogCheckedAt) != false
            watchdogCheckedAt = passedAt ?? 0
            if everyLoopPasses { send(.watchdog, what: "WATCHDOG=1") }
        }
        // Every loop of several counts for the first one's STATUS=.
        guard environment.notifier.isEnabled || slot != nil, statusSummary.isDue(at: now) else { return }
        var counts = LoopTotals.Counts(
            feeds: engine.feeds.count, rows: engine.feeds.values.reduce(0) { $0 + $1.rowCount },
            applied: engine.counters.applied)
        if let slot { counts = slot.totals.record(loop: slot.index, counts) }
        if let text = statusSummary.update(
            at: now, feeds: counts.feeds, rows: counts.rows, applied: counts.applied,
            plugins: renderer?.pluginCount ?? 0), environment.notifier.isEnabled
        {
            send(.status(statusLine(text)), what: "STATUS")
        }
    }

    /// The loop ends: STOPPING=1, then the sockets drain and close.
    func announceStopping(engine: Engine) {
        send(
            NotifyMessage.stopping.adding(.status("stopping: sending the last deltas and replies")), what: "STOPPING=1")
        logger.info(
            "rowcastd stopping: the batch in hand is answered, the sockets close",
            metadata: [
                "feeds": "\(engine.feeds.count)", "lingerMs": "\(configuration.lingerMilliseconds)",
            ])
    }

    /// The summary as it is now.
    func currentStatus(engine: Engine) -> String {
        let rows = engine.feeds.values.reduce(0) { $0 + $1.rowCount }
        return statusLine(
            StatusSummary.text(
                feeds: engine.feeds.count, rows: rows, itemsPerSecond: 0, plugins: renderer?.pluginCount ?? 0))
    }

    /// The status text, with the last reload failure when there was one.
    private func statusLine(_ summary: String) -> String {
        guard let reloadFailure else { return summary }
        return summary + "; last reload failed: " + reloadFailure
    }

    /// Sends one notification; a failure is logged, never fatal.
    func send(_ message: NotifyMessage, what: String) {
        guard !environment.notifier.send(message) else { return }
        logger.warning(
            "cannot notify systemd",
            metadata: [
                "notification": "\(what)", "socket": "\(environment.notifier.socketName ?? "-")",
                "error": "\(String(cString: strerror(errno)))",
            ])
    }
}
