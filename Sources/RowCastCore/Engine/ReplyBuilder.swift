import RowCastKit

/// Builds reply and event bodies with the correlation fields (`req`, `client`) echoed.
public enum ReplyBuilder {
    /// `{"ok":true,"op":...,<members>,"req"?,"client"?}`.
    public static func success(op: String, members: JSONObject, req: JSONValue?, client: String?) -> [UInt8] {
        var object = JSONObject()
        object.append(key: "ok", value: true)
        object.append(key: "op", value: .string(op))
        for entry in members.entries { object.append(key: entry.key, value: entry.value) }
        appendCorrelation(&object, req: req, client: client)
        return JSONValue.object(object).serialized()
    }

    /// `{"ok":false,"op"?:...,"error":{...},"req"?,"client"?}`.
    public static func failure(_ error: RowCastError, op: String?, req: JSONValue?, client: String?) -> [UInt8] {
        var object = JSONObject()
        object.append(key: "ok", value: false)
        if let op { object.append(key: "op", value: .string(op)) }
        object.append(key: "error", value: error.json)
        appendCorrelation(&object, req: req, client: client)
        return JSONValue.object(object).serialized()
    }

    /// The error event published on `errors.<feed>\0` (or `errors\0`).
    static func errorEvent(_ error: RowCastError, req: JSONValue?, client: String?) -> Publication {
        var object = JSONObject()
        object.append(key: "event", value: "error")
        for entry in error.json.objectValue!.entries { object.append(key: entry.key, value: entry.value) }
        appendCorrelation(&object, req: req, client: client)
        let topic = error.feed.map(Topic.errors) ?? Topic.feedlessErrors
        return Publication(topic: topic, body: JSONValue.object(object).serialized())
    }

    private static func appendCorrelation(_ object: inout JSONObject, req: JSONValue?, client: String?) {
        if let req { object.append(key: "req", value: req) }
        if let client { object.append(key: "client", value: .string(client)) }
    }
}
