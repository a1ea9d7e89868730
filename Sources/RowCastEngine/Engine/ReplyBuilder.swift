import RowCastJSON
import RowCastWire

/// Builds reply and event bodies with the correlation fields (`req`, `client`) echoed; `req`
/// is written exactly as the client sent it.
public enum ReplyBuilder {
    /// `{"ok":true,"op":...,<members>,"req"?,"client"?}`.
    public static func success(op: String, members: JSONObject, req: RequestID?, client: String?) -> [UInt8] {
        var object = JSONObject()
        object.append(key: "ok", value: true)
        object.append(key: "op", value: .string(op))
        for entry in members.entries { object.append(key: entry.key, value: entry.value) }
        return serialized(object, req: req, client: client)
    }

    /// `{"ok":false,"op"?:...,"error":{...},"req"?,"client"?}`.
    public static func failure(_ error: RowCastError, op: String?, req: RequestID?, client: String?) -> [UInt8] {
        var object = JSONObject()
        object.append(key: "ok", value: false)
        if let op { object.append(key: "op", value: .string(op)) }
        object.append(key: "error", value: error.json)
        return serialized(object, req: req, client: client)
    }

    /// The error event published on `errors.<feed>\0` (or `errors\0`).
    static func errorEvent(_ error: RowCastError, req: RequestID?, client: String?) -> Publication {
        var object = JSONObject()
        object.append(key: "event", value: "error")
        for entry in error.json.objectValue!.entries { object.append(key: entry.key, value: entry.value) }
        let topic = error.feed.map(Topic.errors) ?? Topic.feedlessErrors
        return Publication(topic: topic, body: serialized(object, req: req, client: client))
    }

    /// `object` (never empty) with `,"req":<as sent>` and `,"client":...` before its `}`.
    private static func serialized(_ object: JSONObject, req: RequestID?, client: String?) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(.object(object))
        guard req != nil || client != nil else { return writer.bytes }
        writer.bytes.removeLast()
        appendCorrelation(&writer, req: req, client: client)
        writer.writeRaw("}")
        return writer.bytes
    }

    /// Writes `,"req":<as sent>` and `,"client":"..."` for those present.
    static func appendCorrelation(_ writer: inout JSONWriter, req: RequestID?, client: String?) {
        if let req {
            writer.writeRaw(",\"req\":")
            writer.writeRaw(req.json.utf8)
        }
        if let client {
            writer.writeRaw(",\"client\":")
            writer.write(string: client)
        }
    }
}
