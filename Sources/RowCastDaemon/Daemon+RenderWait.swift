import RowCastEngine
import RowCastPluginHosting
import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// How the loop applies a batch whose rows plugin hosts are still rendering: the engine
/// applies each message as soon as its rows are in and hands control back (`DurableEngine
/// .resume`), and the loop waits on the hosts itself. While it waits, it sends the output of
/// the commit that finished meanwhile and starts the held-back commit that fell due.
///
/// Without that, the deltas and replies of batch k, committed while the loop applied batch
/// k+1, would wait for batch k+1's round trip to the plugin host before they went out: with
/// plugin hosts, every batch's latency would carry the next batch's round trip and its
/// scheduling tails. Likewise a commit held back by `commit_interval_us` would wait for the
/// round trip to end.
///
/// A host that hangs, crashes or restarts must cost only the messages that wait on it. So
/// the loop waits for hosts at most `parkAfter` per batch (and not at all when only carried
/// messages, or messages held behind them, wait): then it parks the batch
/// (`DurableEngine.park`), whose applied messages are committed and answered as usual, and
/// goes back to its sockets. The messages left (those that wait on the host, and those after
/// them in the same feed or from the same connection) are carried into the next batch, with
/// their reply routes; the loop watches the hosts' descriptors meanwhile and begins a batch
/// as soon as a carried message can be applied. Before a reload and at a stop, carried
/// messages are applied first, waiting as long as their hosts take (each call is bounded by
/// `plugin_timeout_ms`).
extension Daemon {
    /// How long the loop waits for plugin hosts within one batch before it parks the batch.
    static let parkAfter: Duration = .milliseconds(10)

    /// Applies the batch begun with `DurableEngine.begin` to the end, waiting for the plugin
    /// hosts between its messages as needed, or parks it once it waited `parkAfter` (the
    /// routes of the requests it carries over are kept in `carriedRoutes`); returns whether it
    /// deferred a request (a reload), as `DurableEngine.submit` does.
    func applyBegunBatch(
        durable: DurableEngine, receipt: BatchReceipt, control: Socket, publish: Socket
    ) throws -> Bool {
        let began = ContinuousClock.now
        while true {
            if case .applied(let deferring) = durable.resume() { return deferring }
            guard var wait = durable.renderWait else {
                // Rows due with nothing to wait on: only the renderer itself can wait for them.
                guard case .applied(let deferring) = durable.resume(waiting: true) else {
                    preconditionFailure("DurableEngine.resume(waiting: true) did not finish the batch")
                }
                return deferring
            }
            let waited = ContinuousClock.now - began
            // Carried messages (and those held behind them) had their wait: only rows of the
            // batch's own messages are worth waiting for before the batch is parked.
            guard waited < Self.parkAfter, durable.waitsOnOwnRows else {
                let (parked, deferring) = durable.park()
                carriedRoutes = parked.map { receipt.replyRoutes[$0] }
                return deferring
            }
            wait.within = min(wait.within, Self.parkAfter - waited)
            if Self.waitForHosts(wait, orAny: durable.waitDescriptors) {
                try sendFinishedCommit(durable: durable, control: control, publish: publish)
            }
        }
    }

    /// Applies every message carried from parked batches, waiting for their hosts as long as
    /// it takes (a reload or a stop must see them applied), and sends what that deferred.
    func settleCarried(durable: DurableEngine, control: Socket, publish: Socket) throws {
        guard durable.hasCarriedMessages else { return }
        let receipt = BatchReceipt(receivedAt: .now, replyRoutes: carriedRoutes)
        carriedRoutes = []
        durable.begin([], receipt: receipt)
        guard case .applied(let deferring) = durable.resume(waiting: true) else {
            preconditionFailure("DurableEngine.resume(waiting: true) did not finish the batch")
        }
        if deferring { try send(try durable.flush(), control: control, publish: publish, engine: durable.engine) }
        watchHosts([])
    }

    /// Makes the loop's poller watch exactly `descriptors` among the plugin hosts'.
    func watchHosts(_ descriptors: [Int32]) {
        guard descriptors != watchedHostDescriptors else { return }
        for descriptor in watchedHostDescriptors { poller.unregister(fileDescriptor: descriptor) }
        for descriptor in descriptors { poller.register(fileDescriptor: descriptor, for: .readable) }
        watchedHostDescriptors = descriptors
    }

    /// Sends the outputs of a commit that finished and starts the next one when due, without
    /// waiting for anything. It does not change the feeds (a batch is half applied): an output
    /// that defers a request (a reload, which does) is kept for the loop's next `send`, with
    /// every output after it, in order. (The loop flushes after a batch that defers, so none
    /// is in flight during a later batch; this keeps the order if that ever changes.)
    private func sendFinishedCommit(durable: DurableEngine, control: Socket, publish: Socket) throws {
        let outputs = durable.advanceWhileWaiting()
        guard !outputs.isEmpty else { return }
        guard earlyOutputs.isEmpty else {
            earlyOutputs += outputs
            return
        }
        let now = outputs.prefix { $0.deferred.isEmpty }
        let later = outputs[now.count...]
        try send(Array(now), control: control, publish: publish, engine: durable.engine)
        earlyOutputs += later
    }

    /// Waits until a host's descriptor or one of `others` is readable, or `wait.within` passed;
    /// returns whether one of `others` is.
    private static func waitForHosts(_ wait: RenderWait, orAny others: [Int32]) -> Bool {
        var descriptors = (others + wait.descriptors).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let (seconds, attoseconds) = wait.within.components
        let milliseconds = Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        guard poll(&descriptors, nfds_t(descriptors.count), milliseconds) > 0 else { return false }
        return descriptors[..<others.count].contains { $0.revents != 0 }
    }
}
