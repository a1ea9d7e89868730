import RowCastPluginHosting

/// What the loop does while a plugin host renders a batch: send the output of the commit that
/// finished meanwhile, and start the held-back commit that fell due meanwhile.
///
/// Without it, the deltas and replies of batch k, committed while the loop applied batch k+1,
/// waited for batch k+1's round trip to the plugin host before they went out: with plugin
/// hosts, every batch's latency carried the next batch's round trip and its scheduling tails.
/// Likewise a commit held back by `commit_interval_us` waited for the round trip to end.
extension Daemon {
    /// Sends the outputs of a commit that finished and starts the next one when due, without
    /// waiting for anything; called by the plugin hosts' wait (`HostWaitCompanion`) on the
    /// loop thread, in the middle of a render.
    /// It does not touch the engine's state: outputs that defer a request (a reload, which
    /// does) are kept for the loop's next `send`, with every output after them.
    func sendFinishedCommit() {
        guard let durable, let control, let publish else { return }
        let outputs = durable.advanceWhileWaiting()
        guard !outputs.isEmpty else { return }
        let now = outputs.prefix { $0.deferred.isEmpty && earlyOutputs.isEmpty }
        earlyOutputs += outputs[now.count...]
        do {
            try send(Array(now), control: control, publish: publish, engine: durable.engine)
        } catch {
            if earlySendFailure == nil { earlySendFailure = error }
        }
    }
}
