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
extension Daemon {
    /// Applies the batch begun with `DurableEngine.begin` to the end, waiting for the plugin
    /// hosts between its messages as needed; returns whether it deferred a request (a reload),
    /// as `DurableEngine.submit` does.
    func applyBegunBatch(durable: DurableEngine, control: Socket, publish: Socket) throws -> Bool {
        while true {
            if case .applied(let deferring) = durable.resume() { return deferring }
            guard let wait = durable.renderWait else {
                // Rows due with nothing to wait on: only the renderer itself can wait for them.
                guard case .applied(let deferring) = durable.resume(waiting: true) else {
                    preconditionFailure("DurableEngine.resume(waiting: true) did not finish the batch")
                }
                return deferring
            }
            if Self.waitForHosts(wait, orAny: durable.waitDescriptors) {
                try sendFinishedCommit(durable: durable, control: control, publish: publish)
            }
        }
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
