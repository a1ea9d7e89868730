import RowCastPluginHosting

/// Applying a batch: everything the loop read from the sockets in one pass.
///
/// `process` applies a batch in one call, waiting for the renderer wherever an outcome has not
/// arrived. A loop that must not block inside the engine (rowcastd, which sends earlier
/// batches' outputs while plugin hosts render) calls `beginBatch`, then `advanceBatch(waiting:
/// false)` whenever `renderWait` says the renderer may have answered, until it returns the
/// output: the engine applies each message as soon as its rows are in, and returns to the loop
/// instead of waiting.
extension Engine {
    /// Processes one batch, waiting for the renderer as needed.
    public func process(_ messages: [IncomingMessage]) -> EngineOutput {
        beginBatch(messages)
        guard let output = advanceBatch(waiting: true) else {
            preconditionFailure("Engine.process: a batch that waited for nothing did not finish")
        }
        return output
    }

    /// Decodes `messages` and sends their render jobs (when the renderer works in batches); no
    /// message is applied yet. One batch at a time: the previous one must have finished.
    public func beginBatch(_ messages: [IncomingMessage]) {
        precondition(batchInProgress == nil, "Engine.beginBatch: the previous batch has not finished")
        let decoded = messages.map(decode)
        var jobsThrough: [Int] = []
        var stream: (any RenderStream)?
        if renderer.rendersInBatches { (jobsThrough, stream) = prerender(decoded, of: messages) }
        batchInProgress = BatchInProgress(
            messages: messages, decoded: decoded, jobsThrough: jobsThrough, stream: stream)
    }

    /// Applies the begun batch's messages in order and returns its output once the last is
    /// applied. Without `waiting`, it stops before a message whose rows have not arrived and
    /// returns nil: call again after `renderWait`.
    public func advanceBatch(waiting: Bool) -> EngineOutput? {
        guard var state = batchInProgress else { preconditionFailure("Engine.advanceBatch: no batch was begun") }
        batchInProgress = nil  // so `state` holds the only reference to its buffers
        // By index, each message and outcome read where it is: `zip` copied both (a retain and
        // a release of each of their references per message).
        while state.next < state.decoded.count {
            let index = state.next
            if !waiting, !state.isReady(index) {
                batchInProgress = state
                return nil
            }
            counters.received += 1
            let origin = state.messages[index].origin
            let outcome = handle(
                state.decoded[index], from: origin, principal: state.messages[index].principal, batch: &state.batch,
                publications: &state.output.publications)
            if case .control(let token) = origin { state.pending.append((token, outcome)) }
            state.next += 1
        }
        return finishBatch(&state)
    }

    /// What the begun batch waits on before `advanceBatch(waiting: false)` can go further; nil
    /// when no batch is begun or nothing is due from the renderer.
    public var renderWait: RenderWait? { batchInProgress?.stream?.renderWait }

    /// Whether a batch was begun and has not finished.
    public var isBatchInProgress: Bool { batchInProgress != nil }

    /// Publishes the batch's deltas and writes its replies, once every message is applied.
    private func finishBatch(_ state: inout BatchInProgress) -> EngineOutput {
        finishPrerendered()
        var output = state.output
        output.positions = publishDeltas(for: state.batch.dirtyFeeds, into: &output.publications)
        if !droppedPositions.isEmpty {
            output.positions.insert(contentsOf: droppedPositions, at: 0)
            droppedPositions.removeAll()
        }
        for (token, outcome) in state.pending {
            if case .query(let request) = outcome, case .reload = request.operation {
                output.deferred.append(DeferredRequest(token: token, request: request))
                continue
            }
            if case .query(let request) = outcome, case .snapshot(let chunked, let window) = request.operation {
                let job = SnapshotJob(
                    token: token, request: request, chunked: chunked, window: window, feed: feeds[request.feed!],
                    messageLimit: decoder.maximumMessageBytes)
                if writesSnapshotsLater {
                    output.snapshots.append(job)
                } else {
                    for body in job.replies() { output.replies.append(Reply(token: token, body: body)) }
                }
                continue
            }
            let body = reply(for: outcome, publications: &output.publications)
            remember(outcome, reply: body)
            output.replies.append(Reply(token: token, body: body))
        }
        ledger.endBatch()
        return output
    }
}
