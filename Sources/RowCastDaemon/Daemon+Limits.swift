import RowCastEngine
import RowCastJSON
import ZeroMQ

/// What bounds a client's cost: the message size limits shown in `status`, and replies
/// dropped (and counted) for a client that does not read them (docs/OPERATIONS.md, "Memory").
extension Daemon {
    /// The `limits` member of the status reply: the message size limit, the hard limit, and
    /// the state limits (`max_feeds`, ...).
    static func limitsMember(_ configuration: DaemonConfiguration) -> JSONValue {
        var members = JSONObject()
        members.append(key: "max_message_bytes", value: .number(Double(configuration.maximumMessageBytes)))
        members.append(key: "hard_message_bytes", value: .number(Double(configuration.hardMessageBytes)))
        for (key, value) in configuration.stateLimits.json { members.append(key: key, value: .number(Double(value))) }
        return .object(members)
    }

    /// Sends one reply without waiting. A reply to a client whose queue is full (it does not
    /// read: `limits.client_reply_queue` replies wait already) or that is gone is dropped and
    /// counted (`counters.dropped` in status); the client's retry gets the answer again.
    func sendReply(_ frames: [[UInt8]], on control: Socket, engine: Engine) {
        do {
            if try control.send(frames, dontWait: true) { return }
            if engine.counters.dropped == 0 || engine.counters.dropped.isMultiple(of: 10_000) {
                logger.warning(
                    "reply dropped: a client is not reading its replies (limits.client_reply_queue reached)",
                    metadata: ["dropped": "\(engine.counters.dropped + 1)"])
            }
        } catch {
            logger.debug("reply dropped: the client is gone", metadata: ["error": "\(error)"])
        }
        engine.countDroppedReply()
    }
}
