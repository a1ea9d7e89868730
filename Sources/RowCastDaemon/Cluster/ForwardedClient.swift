/// The client a cluster node forwards a message for, when CURVE is on (docs/PROTOCOL.md,
/// "Forwarded messages"; docs/SECURITY.md, "Cluster nodes"). The forwarding node appends one
/// frame to the message after its body, `rowcast-client:` followed by the original client's
/// public key (Z85), or nothing for a client that connected over `ipc://` (not checked), and
/// sends it over its CURVE connection as a cluster node: a connection whose public key is the
/// server key every node shares. The owner applies the grants of the client that key names
/// in its own keyring, as if that client had connected to it.
///
/// The frame is honoured from a node's connection and from connections that are not checked
/// anyway (`ipc://`, or CURVE off), since naming a client only narrows what those may do. From
/// a CURVE client it is refused with `forbidden`, nothing applied: a client cannot pose as
/// another. A node's connection must name a client in every message.
enum ForwardedClient {
    /// The User-Id the ZAP handler gives a connection made with the cluster's server key: a
    /// node, which may forward for any client. No client file can have this name (`@`).
    static let nodeUserID = "@node"

    /// How the client frame starts.
    static let prefix: [UInt8] = Array("rowcast-client:".utf8)

    /// The most bytes of a second frame worth keeping: the prefix and a 40-character key.
    static let maximumFrameBytes = 64

    /// What the receiving node makes of a message's sender.
    enum Resolution: Equatable {
        /// Apply the message as sent by `principal` (nil: not checked), with `frameCount` frames
        /// (the client frame taken off).
        case client(principal: String?, frameCount: Int)
        /// Refuse the message with `forbidden` and this message; nothing is applied.
        case refused(String)
    }

    /// The frame naming `publicKey`, or a local client for nil.
    static func frame(publicKey: String?) -> [UInt8] {
        prefix + Array((publicKey ?? "").utf8)
    }

    /// Whether `frame` is a client frame.
    static func isFrame(_ frame: [UInt8]) -> Bool {
        frame.count >= prefix.count && frame.starts(with: prefix)
    }

    /// Who sent a message of `frameCount` frames whose second frame (when it has two) is
    /// `second`, over a connection whose User-Id is `userID` (nil or empty: not checked), with
    /// `keyring` naming clients by key (nil: CURVE off).
    static func resolve(
        frameCount: Int, second: [UInt8]?, userID: String?, keyring: ClientKeyring?
    ) -> Resolution {
        let connection = userID.flatMap { $0.isEmpty ? nil : $0 }
        let isNode = connection == nodeUserID
        guard frameCount == 2, let second, isFrame(second) else {
            if isNode {
                return .refused(
                    "this connection uses the cluster's server key, so it is a node's, and a node must name the client it forwards each message for in a last frame (rowcast-client:KEY); nothing was applied"
                )
            }
            return .client(principal: connection, frameCount: frameCount)
        }
        guard isNode || connection == nil else {
            return .refused(
                "client \"\(connection ?? "")\" sent a rowcast-client frame, which only a cluster node may send to name the client it forwards for; nothing was applied (send the request as one frame)"
            )
        }
        let key = String(decoding: second.dropFirst(prefix.count), as: UTF8.self)
        guard !key.isEmpty else { return .client(principal: nil, frameCount: 1) }
        guard let keyring else { return .client(principal: nil, frameCount: 1) }
        guard let client = keyring.clientsByKey[key] else {
            return .refused(
                "the client key \(key) this request was forwarded for is not in this node's client keys directory; every node of a cluster needs the same client key files (then rowcast reload); nothing was applied"
            )
        }
        return .client(principal: client.name, frameCount: 1)
    }
}
