import RowCastJSON

/// Decides what a relay does with one request body from downstream: forward it to rowcastd
/// when it is one of the read-only operations replicas need, or answer it at once with an
/// error reply in rowcastd's format (docs/PROTOCOL.md, "Replies"), echoing `req` exactly as
/// sent and `client`.
///
/// The body is read with the parser rowcastd uses, and a body naming `op` twice is refused,
/// so no request can look read-only here and be a write there.
public enum RelayRequestFilter {
    /// The operations a relay forwards: what `ReplicaSession`, `rowcast subscribe --replica`,
    /// `rowcast snapshot` and `rowcast status` send.
    public static let forwarded: Set<String> = ["snapshot", "since", "status", "plugins"]

    /// The code of the refusal of an operation a relay does not forward.
    public static let readOnlyCode = "read_only"

    /// The code of the refusal of a request that cannot be queued for rowcastd (the relay's
    /// queue to it is full: rowcastd is down or far behind).
    public static let unavailableCode = "unavailable"

    /// What to do with one request.
    public enum Decision: Sendable, Equatable {
        /// Send it on to rowcastd unchanged.
        case forward
        /// Answer with this reply body; nothing goes upstream.
        case refuse(reply: [UInt8])
    }

    /// The decision for `body`, a request of `frameCount` frames after its envelope.
    public static func decide(_ body: [UInt8], frameCount: Int = 1) -> Decision {
        let fields = Fields(body)
        if frameCount != 1 {
            return .refuse(
                reply: fields.reply(
                    code: "invalid_request",
                    "request is \(frameCount) frames after the envelope; send exactly one frame per request (PROTOCOL.md, Framing)"
                ))
        }
        if let problem = fields.problem { return .refuse(reply: problem) }
        guard let op = fields.op else {
            return .refuse(reply: fields.reply(code: "missing_field", "request has no \"op\"", field: "op"))
        }
        guard forwarded.contains(op) else {
            let allowed = forwarded.sorted().joined(separator: ", ")
            return .refuse(
                reply: fields.reply(
                    code: readOnlyCode,
                    "\(op): this is a rowcast relay, which forwards only \(allowed); send \(op) to rowcastd's own control endpoint"
                ))
        }
        return .forward
    }

    /// A refusal of `body` with `code` and `message`, echoing its `op`, `req` and `client`.
    public static func refusal(of body: [UInt8], code: String, _ message: String) -> [UInt8] {
        Fields(body).reply(code: code, message)
    }

    /// The members a refusal needs, read from the top level of the body.
    private struct Fields {
        /// The `op`, when it is a string given once.
        var op: String?
        /// The `req` as sent, when it is a string or a number.
        var req: [UInt8]?
        /// The `client`, when it is a string.
        var client: String?
        /// A reply refusing a body that is not a request object, or nil.
        var problem: [UInt8]?

        init(_ body: [UInt8]) {
            var found = (
                op: String?.none, opCount: 0, opKind: String?.none, req: [UInt8]?.none, client: String?.none,
                isObject: true
            )
            do {
                try JSONParser.read(body) { reader in
                    guard reader.peekValueStart() == UInt8(ascii: "{") else {
                        found.isObject = false
                        _ = try reader.readValue()
                        return
                    }
                    try reader.beginObject()
                    while let key = try reader.nextKey() {
                        switch key {
                        case "op":
                            let value = try reader.readValue()
                            found.opCount += 1
                            found.op = value.stringValue
                            found.opKind = value.stringValue == nil ? value.kindName : nil
                        case "req":
                            let first = reader.peekValueStart()
                            let range = try reader.skipValue()
                            if first == UInt8(ascii: "\"") || first == UInt8(ascii: "-")
                                || first.map({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) == true
                            {
                                found.req = Array(body[range])
                            }
                        case "client":
                            found.client = try reader.readValue().stringValue
                        default:
                            try reader.skipValue()
                        }
                    }
                }
            } catch {
                op = nil
                problem = Self.reply(
                    op: nil, req: found.req, client: found.client, code: "invalid_json",
                    "request is not valid JSON (\(error))", field: nil)
                return
            }
            req = found.req
            client = found.client
            guard found.isObject else {
                problem = Self.reply(
                    op: nil, req: nil, client: nil, code: "invalid_request", "request is not a JSON object", field: nil)
                return
            }
            if found.opCount > 1 {
                problem = Self.reply(
                    op: nil, req: req, client: client, code: "invalid_request",
                    "request names \"op\" \(found.opCount) times; name it once", field: "op")
            } else if let kind = found.opKind {
                problem = Self.reply(
                    op: nil, req: req, client: client, code: "invalid_field", "\"op\" is a \(kind), not a string",
                    field: "op")
            }
            op = found.opCount == 1 ? found.op : nil
        }

        /// A refusal of this request.
        func reply(code: String, _ message: String, field: String? = nil) -> [UInt8] {
            Self.reply(op: op, req: req, client: client, code: code, message, field: field)
        }

        /// `{"ok":false,"op"?:...,"error":{"code","message","field"?},"req"?,"client"?}`.
        static func reply(
            op: String?, req: [UInt8]?, client: String?, code: String, _ message: String, field: String?
        ) -> [UInt8] {
            var writer = JSONWriter()
            writer.writeRaw("{\"ok\":false")
            if let op {
                writer.writeRaw(",\"op\":")
                writer.write(string: op)
            }
            writer.writeRaw(",\"error\":{\"code\":")
            writer.write(string: code)
            writer.writeRaw(",\"message\":")
            writer.write(string: message)
            if let field {
                writer.writeRaw(",\"field\":")
                writer.write(string: field)
            }
            writer.writeRaw("}")
            if let req {
                writer.writeRaw(",\"req\":")
                writer.writeRaw(req)
            }
            if let client {
                writer.writeRaw(",\"client\":")
                writer.write(string: client)
            }
            writer.writeRaw("}")
            return writer.bytes
        }
    }
}
