import RowCastEngine
import RowCastWire
import ZeroMQ

/// Who sent a message, with a cluster node's ``ForwardedClient`` frame taken into account: the
/// read step asks here before a message goes to the engine or to another node.
extension Daemon {
    /// The sender of an ingest message and its frame count without the client frame; nil when
    /// it was refused (its error event is published on the feed's error topic).
    func sender(ofIngest frame: FirstFrame) throws -> (principal: String?, frameCount: Int)? {
        let resolution = ForwardedClient.resolve(
            frameCount: frame.frameCount, second: frame.frameCount == 2 ? frame.second : nil,
            userID: frame.property, keyring: zap?.keyring)
        switch resolution {
        case .client(let principal, let frameCount): return (principal, frameCount)
        case .refused(let message):
            noteRefusedClientFrame(message, userID: frame.property)
            if let publish {
                try publishAll([RequestRouting(body: frame.bytes).refusalEvent(.forbidden, message)], on: publish)
            }
            return nil
        }
    }

    /// The sender of a control request and its frame count without the client frame; nil when
    /// it was refused (answered `forbidden` on its route).
    func sender(of envelope: ControlEnvelope, userID: String?) -> (principal: String?, frameCount: Int)? {
        let resolution = ForwardedClient.resolve(
            frameCount: envelope.bodyFrameCount, second: envelope.secondBodyFrame, userID: userID,
            keyring: zap?.keyring)
        switch resolution {
        case .client(let principal, let frameCount): return (principal, frameCount)
        case .refused(let message):
            noteRefusedClientFrame(message, userID: userID)
            if let control, let engine {
                let reply = RequestRouting(body: envelope.body).refusal(.forbidden, message)
                sendReply(envelope.route.replyFrames(reply), on: control, engine: engine)
            }
            return nil
        }
    }

    /// Counts a message refused for its client frame and logs it (sparsely under a flood): a
    /// client that names another is trying to pose as it.
    private func noteRefusedClientFrame(_ message: String, userID: String?) {
        refusedClientFrames += 1
        if let engine { updateCurveStatus(engine: engine) }
        guard refusedClientFrames <= 100 || refusedClientFrames.isMultiple(of: 1000) else { return }
        logger.warning(
            "refused a message for its client frame",
            metadata: [
                "connection": "\(userID.flatMap { $0.isEmpty ? nil : $0 } ?? "unchecked")", "why": "\(message)",
                "refusedSoFar": "\(refusedClientFrames)",
            ])
    }

    /// The ``ForwardedClient`` frame naming `principal` to the owner, with CURVE (nil without:
    /// nothing is checked); a refusal when `principal` has no key here any more (its file was
    /// removed and the keys reloaded).
    func clientFrame(for principal: String?) -> Result<[UInt8]?, ForwardingRefusal> {
        guard let zap else { return .success(nil) }
        guard let principal else { return .success(ForwardedClient.frame(publicKey: nil)) }
        guard let client = zap.keyring.clientsByName[principal] else {
            return .failure(
                ForwardingRefusal(
                    "client \"\(principal)\" is no longer in this node's client keys directory; nothing was applied"))
        }
        return .success(ForwardedClient.frame(publicKey: client.publicKey))
    }
}

/// Why a message cannot be forwarded for its client.
struct ForwardingRefusal: Error {
    /// What to tell the client.
    let message: String

    init(_ message: String) { self.message = message }
}
