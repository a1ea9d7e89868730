import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON

/// A renderer for engine tests: renders every type in `itemTypes` into a row whose content
/// echoes the item data, rejects items whose data has `"bad": true`, and lets a test change
/// which types it handles (to simulate a plugin reload). Items whose data has `"crash": true`
/// fault as a crashing plugin host would (`plugin_crashed`).
final class FakeRenderer: RowRendering {
    var itemTypes: Set<String>
    var headerTypes: Set<String>
    var generation: Int
    var renderCalls = 0
    /// Whether items with `"crash": true` fault (false: they render like the others, a fixed plugin).
    var crashes = true
    /// Whether the plugin is paused after a crash loop: every item gets `plugin_unavailable`.
    var paused = false
    /// When set, the plugin pauses after this many more item renders (a crash loop that
    /// begins in the middle of a batch).
    var pauseAfterRenders: Int?

    init(itemTypes: Set<String> = ["product"], headerTypes: Set<String> = [], generation: Int = 1) {
        self.itemTypes = itemTypes
        self.headerTypes = headerTypes
        self.generation = generation
    }

    func renderItem(type: String, input: [UInt8]) -> RenderOutcome {
        guard itemTypes.contains(type) else { return .noRenderer }
        if let remaining = pauseAfterRenders {
            if remaining == 0 { paused = true } else { pauseAfterRenders = remaining - 1 }
        }
        if paused {
            return .faulted(
                PluginFaultReport(code: .pluginUnavailable, reason: "paused", plugin: "fake", file: "fake.so"))
        }
        renderCalls += 1
        guard let item = try? JSONParser.parse(input), let data = item["data"]?.objectValue else {
            return .failed(message: "bad input")
        }
        if crashes, data["crash"] == .bool(true) {
            return .faulted(
                PluginFaultReport(
                    code: .pluginCrashed, reason: "killed by signal 11", plugin: "fake", file: "fake.so"))
        }
        if data["bad"] == .bool(true) {
            return .rejected(message: "missing field \"name\"", field: "name", code: "missing_field")
        }
        if data["garbage"] == .bool(true) { return .ok(Array("not json".utf8)) }
        let cell = data["cell"]?.stringValue ?? "\(type)Cell"
        var content = data
        content["actions"] = nil
        let row: JSONValue = [
            "cell": .string(cell), "height": 44, "content": .object(data["actions"] == nil ? data : content),
            "actions": data["actions"] ?? [],
        ]
        return .ok(row.serialized())
    }

    func renderHeader(type: String, input: [UInt8]) -> RenderOutcome {
        guard headerTypes.contains(type) else { return .noRenderer }
        let section = try! JSONParser.parse(input)
        let row: JSONValue = ["cell": "Header", "height": 30, "content": section["header"] ?? .null]
        return .ok(row.serialized())
    }

    func select(type: String, input: [UInt8]) -> RenderOutcome {
        guard itemTypes.contains(type) else { return .noRenderer }
        let request = try! JSONParser.parse(input)
        let event: JSONValue = ["kind": "show_detail", "id": request["id"] ?? .null]
        return .ok(event.serialized())
    }

    /// Like a plugin with `handle_action`: a `delete` role deletes the item, an `edit` or
    /// `toggle` role sets its field to the value, anything else is `select`'s event.
    func act(type: String, input: [UInt8]) -> RenderOutcome {
        guard itemTypes.contains(type) else { return .noRenderer }
        let request = try! JSONParser.parse(input)
        let action = request["action"]?.stringValue ?? ""
        let declared = request["item"]?["data"]?["actions"]?.arrayValue?.first { $0["name"]?.stringValue == action }
        let event: JSONValue = ["kind": .string(action), "id": request["id"] ?? .null]
        switch declared?["role"]?.stringValue {
        case "delete":
            return .ok(JSONValue.object(["event": event, "delete": true]).serialized())
        case "edit", "toggle":
            let field = declared?["field"]?.stringValue ?? "?"
            let value = request["value"] ?? .bool(!(request["item"]?["data"]?[field]?.boolValue ?? false))
            return .ok(
                JSONValue.object(["event": event, "update": .object(JSONObject([(key: field, value: value)]))])
                    .serialized())
        default:
            guard case .ok(let output) = select(type: type, input: input) else {
                return select(type: type, input: input)
            }
            return .ok(Array("{\"event\":".utf8) + output + [UInt8(ascii: "}")])
        }
    }

    func rendererIdentity(forItemType type: String) -> String? {
        itemTypes.contains(type) ? "fake@\(generation)" : nil
    }

    func rendererIdentity(forHeaderType type: String) -> String? {
        headerTypes.contains(type) ? "fake@\(generation)" : nil
    }

    func pluginsDescription() -> JSONObject {
        ["plugins": [], "types": [:], "refusals": []]
    }

    var pluginCount: Int { 1 }
}
