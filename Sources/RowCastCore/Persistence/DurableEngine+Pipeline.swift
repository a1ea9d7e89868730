/// The pipelined path the daemon uses: the loop thread applies batches to the engine while
/// the commit thread writes the batches before them.
///
/// - `submit` applies a batch at once and keeps its output back;
/// - `startCommit` hands every kept batch to the commit thread, as one transaction;
/// - `collectCommitted` waits for that transaction and returns the outputs it released, in
///   order, then starts the next one with what was submitted meanwhile.
///
/// So the commit of batch k overlaps the work on batch k+1, and under load one transaction
/// carries every batch that arrived while the previous one was written (group commit), while
/// a lone request is committed at once. Nothing of a batch goes out before its commit: a query
/// answered from state that includes uncommitted batches is released with them.
///
/// When a commit fails, the batches it carried and every batch submitted after them (applied
/// on top of the failed state) are refused with `storage_error`, nothing of them is published,
/// and the engine is rolled back to the committed state.
extension DurableEngine {
    /// A batch applied to the engine, waiting for its commit before its output may go out.
    struct UncommittedBatch {
        var output: EngineOutput
        var commit: StoreCommit
    }

    /// Applies `messages` to the engine now; their output comes back from `collectCommitted`
    /// (or `flush`) once committed. Returns whether the batch deferred requests to the caller
    /// (a `reload`): then `flush` before anything else, so the reload happens in order.
    public func submit(_ messages: [IncomingMessage]) -> Bool {
        let output = engine.process(messages)
        submitted.append(UncommittedBatch(output: output, commit: takeCommit()))
        return !output.deferred.isEmpty
    }

    /// Whether a commit is being written.
    public var isCommitting: Bool { writer.isBusy }

    /// Whether outputs are held back: submitted, being committed, or released and not yet
    /// taken by `collectCommitted`.
    public var hasHeldOutputs: Bool { !submitted.isEmpty || !committing.isEmpty || !released.isEmpty }

    /// Starts committing every submitted batch, unless a commit is being written (then they
    /// wait for the next `collectCommitted`). Batches that changed nothing durable are released
    /// without a commit when nothing before them is held.
    public func startCommit() {
        guard !writer.isBusy, !submitted.isEmpty else { return }
        let commits = submitted.map(\.commit).filter { !$0.isEmpty }
        if commits.isEmpty {
            released += submitted.map(\.output)
            submitted = []
            return
        }
        committing = submitted
        submitted = []
        writer.start(commits)
    }

    /// Waits for the commit being written, if any, and returns the outputs released since the
    /// last call, in order (refusals when the commit failed); then starts committing what was
    /// submitted meanwhile. Throws only when the engine cannot be brought back in line with
    /// the store (the daemon must stop).
    public func collectCommitted() throws(StoreError) -> [EngineOutput] {
        if writer.isBusy {
            let batches = committing
            committing = []
            switch writer.wait() {
            case .success:
                released += batches.map(\.output)
            case .failure(let error):
                let refused = batches + submitted
                submitted = []
                logger.error("commit failed; its batches and those applied after them are refused with storage_error", metadata: [
                    "error": "\(error.message)", "batches": "\(refused.count)", "replies": "\(refused.reduce(0) { $0 + $1.output.replies.count })",
                ])
                let feeds = Set(refused.flatMap { $0.commit.feeds.map(\.feed) })
                try rollBack(feeds: feeds.sorted(), renderers: refused.flatMap(\.commit.renderers))
                released += refused.map { Self.refusal(of: $0.output, error: error) }
            }
        }
        startCommit()
        defer { released = [] }
        return released
    }

    /// Commits everything submitted and returns every output still held back, in order,
    /// waiting as long as it takes. The store is idle when it returns.
    public func flush() throws(StoreError) -> [EngineOutput] {
        var outputs: [EngineOutput] = []
        repeat {
            outputs += try collectCommitted()
        } while hasHeldOutputs
        return outputs
    }
}
