import RowCastPluginHosting

/// Applying a batch: everything the loop read from the sockets in one pass.
///
/// `process` applies a batch in one call, waiting for the renderer wherever an outcome has not
/// arrived. A loop that must not block inside the engine (rowcastd, which sends earlier
/// batches' outputs while plugin hosts render) calls `beginBatch`, then `advanceBatch(waiting:
/// false)` whenever `renderWait` says the renderer may have answered, until it returns the
/// output: the engine applies each message as soon as its rows are in, and returns to the loop
/// instead of waiting. Messages whose rows are in are applied ahead of one that waits, unless
/// they must keep their place behind it (`MessageOrder`: the same feed or connection).
///
/// A loop that will not wait longer for a host (it hangs, or restarts) parks the batch
/// (`parkBatch`): what was applied goes out as the batch's output, and the rest is carried
/// into the next batch, before its own messages, in order.
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
    ///
    /// Messages carried from a parked batch come first: the k-th carried control request gets
    /// reply token k, so the caller numbers the tokens of `messages` from
    /// `carriedReplyCount` (taken before this call) on.
    public func beginBatch(_ messages: [IncomingMessage]) {
        precondition(batchInProgress == nil, "Engine.beginBatch: the previous batch has not finished")
        let decodedOwn = messages.map(decode)
        var jobsThrough: [Int] = []
        var stream: (any RenderStream)?
        if renderer.rendersInBatches { (jobsThrough, stream) = prerender(decodedOwn, of: messages) }
        guard !carried.isEmpty else {
            batchInProgress = BatchInProgress(
                messages: messages, decoded: decodedOwn, carried: [], jobsThrough: jobsThrough, stream: stream)
            return
        }
        var taken = carried
        carried = []
        var token = 0
        for index in taken.indices where taken[index].message.origin != .ingest {
            taken[index].message.origin = .control(replyTo: token)
            token += 1
        }
        batchInProgress = BatchInProgress(
            messages: taken.map(\.message) + messages, decoded: taken.map(\.decoded) + decodedOwn, carried: taken,
            jobsThrough: jobsThrough, stream: stream)
    }

    /// Applies the begun batch's messages in order and returns its output once the last is
    /// applied. Without `waiting`, it applies what it can (each message whose rows are in, and
    /// that need not wait for one before it), and returns nil while a message waits: call
    /// again after `renderWait`, or park the batch.
    public func advanceBatch(waiting: Bool) -> EngineOutput? {
        guard var state = batchInProgress else { preconditionFailure("Engine.advanceBatch: no batch was begun") }
        batchInProgress = nil  // so `state` holds the only reference to its buffers
        // By index, each message and outcome read where it is: `zip` copied both (a retain and
        // a release of each of their references per message).
        while state.next < state.decoded.count {
            let index = state.next
            if state.isApplied(index) {
                state.next += 1
                continue
            }
            if !waiting, !state.isReady(index) {
                applyAhead(&state)
                batchInProgress = state
                return nil
            }
            apply(index, of: &state)
            state.next += 1
        }
        return finishBatch(&state)
    }

    /// Applies every message after the first unapplied one whose rows are in and which no
    /// unapplied message before it holds back (`MessageOrder`).
    private func applyAhead(_ state: inout BatchInProgress) {
        var order = MessageOrder()
        state.waitsOnOwnRows = false
        for index in state.next..<state.decoded.count where !state.isApplied(index) {
            let key = MessageOrder.key(of: state.messages[index], decoded: state.decoded[index])
            if order.holds(key) {
                order.hold(key)
                continue
            }
            if !state.isReady(index) {
                if index >= state.carried.count { state.waitsOnOwnRows = true }
                order.hold(key)
                continue
            }
            apply(index, of: &state)
            state.markAppliedAhead(index)
        }
    }

    /// Applies message `index` of the batch.
    private func apply(_ index: Int, of state: inout BatchInProgress) {
        counters.received += 1
        let origin = state.messages[index].origin
        let outcome = handle(
            state.decoded[index], from: origin, principal: state.messages[index].principal, batch: &state.batch,
            publications: &state.output.publications)
        if case .control(let token) = origin { state.pending.append((token, outcome)) }
        state.appliedCount += 1
    }

    /// Ends the begun batch with what it applied so far: its output, as a finished batch's,
    /// and how many messages it applied. The messages not applied are carried into the next
    /// batch (`beginBatch`), in order; `parked` lists the reply tokens of the carried control
    /// requests, in that order (the k-th gets token k in the next batch).
    public func parkBatch() -> (output: EngineOutput, applied: Int, parked: [Int]) {
        guard var state = batchInProgress else { preconditionFailure("Engine.parkBatch: no batch was begun") }
        batchInProgress = nil
        var parked: [Int] = []
        for index in state.next..<state.decoded.count where !state.isApplied(index) {
            carried.append(state.carriedMessage(index))
            if case .control(let token) = state.messages[index].origin { parked.append(token) }
        }
        return (finishBatch(&state), state.appliedCount, parked)
    }

    /// What the begun batch waits on before `advanceBatch(waiting: false)` can go further; nil
    /// when no batch is begun or nothing is due from the renderer.
    public var renderWait: RenderWait? { batchInProgress?.renderWait }

    /// Whether a batch was begun and has not finished.
    public var isBatchInProgress: Bool { batchInProgress != nil }

    /// Whether the begun batch waits on rows of its own messages (not only on carried ones,
    /// which the loop already waited for, or on messages held behind them): a loop may give
    /// its own a moment before it parks the batch.
    public var waitsOnOwnRows: Bool { batchInProgress?.waitsOnOwnRows ?? false }

    /// Whether messages of a parked batch wait to be applied by the next one.
    public var hasCarriedMessages: Bool { !carried.isEmpty }

    /// How many carried messages are control requests (the reply tokens they take in the next
    /// batch, from 0).
    public var carriedReplyCount: Int { carried.count { $0.message.origin != .ingest } }

    /// What the carried messages wait on; nil when none waits on a host.
    public var carriedWait: RenderWait? {
        carried.reduce(nil) { wait, message in message.stream?.renderWait?.merged(with: wait) ?? wait }
    }

    /// Whether a batch begun now would apply a carried message: one has its rows and no
    /// carried message before it holds it back. Reads what the hosts answered meanwhile.
    public var carriedCanAdvance: Bool {
        var order = MessageOrder()
        for message in carried {
            let key = MessageOrder.key(of: message.message, decoded: message.decoded)
            if !order.holds(key), message.isReady { return true }
            order.hold(key)
        }
        return false
    }

    /// Publishes the batch's deltas and writes its replies, once every message is applied (or
    /// the batch is parked).
    private func finishBatch(_ state: inout BatchInProgress) -> EngineOutput {
        finishPrerendered()
        var output = state.output
        output.positions = publishDeltas(for: state.batch.dirtyFeeds, into: &output.publications)
        if !droppedPositions.isEmpty {
            output.positions.insert(contentsOf: droppedPositions, at: 0)
            droppedPositions.removeAll()
        }
        // The answers of the batch that `remember` leaves out, for repeats in the same batch.
        var unremembered: [LedgerKey: [UInt8]] = [:]
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
            let body: [UInt8]
            if case .recalled(let key, nil) = outcome, let first = unremembered[key], ledger.answer(key) == nil {
                // A repeat in the same batch of a request whose answer is not remembered (a
                // paused plugin's): it gets the same answer.
                body = first
            } else {
                body = reply(for: outcome, publications: &output.publications)
            }
            remember(outcome, reply: body)
            if case .failed(let error, _, let req, let client) = outcome,
                Self.unrememberedCodes.contains(error.code), let key = LedgerKey(client: client, req: req)
            {
                unremembered[key] = body
            }
            output.replies.append(Reply(token: token, body: body))
        }
        ledger.endBatch()
        return output
    }
}
