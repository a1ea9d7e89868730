import RowCastJSON
import RowCastWire

extension Engine {
    /// The ops that change a feed; only their answers are remembered.
    static let mutationOps: Set<String> = ["upsert", "delete", "section", "delete_section", "reset", "select", "drop"]

    /// For an acked mutation that carries `client` and `req`: nil when it is new (apply it),
    /// or its first answer when it was seen before (in this batch or an earlier one).
    func recall(_ request: Request) -> Pending? {
        guard let key = LedgerKey(client: request.client, req: request.req) else { return nil }
        switch ledger.claim(key) {
        case .fresh:
            return nil
        case .answered(let reply):
            logger.debug(
                "repeated request answered from the ledger", metadata: ["client": "\(key.client)", "req": "\(key.req)"])
            return .recalled(key, answer: reply)
        case .inBatch:
            return .recalled(key, answer: nil)
        }
    }

    /// Whether `request` is a retry of a feed operation that `recall` will answer from the
    /// ledger (it came over the control socket and its answer is known), so it applies nothing.
    func isAnsweredRetry(_ request: Request, from origin: IncomingMessage.Origin) -> Bool {
        guard origin != .ingest, request.isMutation, let key = LedgerKey(client: request.client, req: request.req)
        else { return false }
        return ledger.answer(key) != nil
    }

    /// Remembers the answer to an acked mutation that carries `client` and `req`, applied or
    /// refused, so that a retry gets it again; except a `storage_error` or a
    /// `plugin_unavailable`, which a retry may get past once the store can write or the
    /// plugin's pause is over.
    /// Refusals that say nothing was decided about the request (the store or the plugin could
    /// not be used, or no node serves its feed right now): not remembered, so a retry is
    /// applied once it can be.
    static let unrememberedCodes: Set<ErrorCode> = [.storageError, .pluginUnavailable, .partitionUnavailable]

    func remember(_ outcome: Pending, reply: [UInt8]) {
        switch outcome {
        case .applied(let request, _, _):
            if let key = LedgerKey(client: request.client, req: request.req) { ledger.record(key, reply: reply) }
        case .failed(let error, let op, let req, let client):
            if !Self.unrememberedCodes.contains(error.code), let op, Self.mutationOps.contains(op),
                let key = LedgerKey(client: client, req: req)
            {
                ledger.record(key, reply: reply)
            }
        case .query, .recalled, .answered:
            break
        }
    }

    /// The reply to a repeated request: its first answer, read from the ledger when that answer
    /// was written earlier in the same batch.
    func recalledReply(_ key: LedgerKey, answer: [UInt8]?) -> [UInt8] {
        if let reply = answer ?? ledger.answer(key) { return reply }
        let error = RowCastError(
            .internalError,
            "request \(key.req) of client \"\(key.client)\" was sent twice in one batch and its first answer is gone; please report this"
        )
        return ReplyBuilder.failure(error, op: nil, req: nil, client: key.client)
    }
}
