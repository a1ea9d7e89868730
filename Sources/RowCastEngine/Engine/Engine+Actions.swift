import RowCastKit
import RowCastPluginHosting
import RowCastWire

extension Engine {
    /// Runs a `select` inside the batch: checks the action against the row's declared actions
    /// and the value against its role, calls the plugin's action handler, applies the change
    /// it returns (an update of the item's data fields, or a delete) through the same path as
    /// an upsert or a delete, and records the action event. Throws without changing anything.
    /// Returns the reply's members after `feed`, `seq` and `epoch`.
    func performSelect(
        _ request: Request, id: String, action: String, value: JSONValue?, requester: String?, batch: inout BatchState,
        publications: inout [Publication]
    ) throws(RowCastError) -> JSONObject {
        let name = request.feed!
        guard let feed = feeds[name], let item = feed.item(id) else {
            throw RowCastError(
                .notFound, "select: feed \"\(name)\" has no item \"\(id)\"", field: "id", feed: name, id: id)
        }
        let subject = "select \"\(action)\" on item \"\(id)\" (type \(item.input.type))"
        guard let row = item.row else {
            throw RowCastError(
                .noAction,
                "\(subject): the item has no row (no plugin renders type \(item.input.type), or the item is quarantined), so it has no actions",
                feed: name, id: id)
        }
        let role = try Self.declaredRole(of: action, in: row.bytes, subject: subject, feed: name, id: id)
        if let problem = role.problem(with: value) {
            throw RowCastError(
                .invalidValue, "\(subject): invalid value for action \"\(action)\" (role \(role.name)): \(problem)",
                field: "value", feed: name, id: id)
        }
        let result = try runActionHandler(
            item.input, action: action, value: value, requester: requester, feed: name, subject: subject)
        if let change = result.change {
            let operation: Request.Operation
            switch change {
            case .update(let fields):
                operation = .upsert(try Self.item(item.input, updating: fields, subject: subject, feed: name))
            case .delete: operation = .delete(id: id)
            }
            let changeRequest = Request(
                op: request.op, feed: name, operation: operation, req: request.req, client: request.client)
            do {
                _ = try apply(changeRequest, batch: &batch, publications: &publications)
            } catch {
                throw RowCastError(
                    error.code,
                    "\(subject): the change the plugin returned (\(change.name)) was refused: \(error.message)",
                    field: error.field, feed: name, id: id)
            }
        }
        var members = JSONObject()
        members.append(key: "id", value: .string(id))
        members.append(key: "action", value: .string(action))
        members.append(key: "event", value: result.event)
        members.append(key: "change", value: result.change.map { .string($0.name) } ?? .null)
        guard !result.event.isNull || result.change != nil else { return members }
        let recorded = actionEvents.append(feed: name) { sequence in
            var event: JSONObject = [
                "event": "action", "feed": .string(name), "id": .string(id), "action": .string(action),
            ]
            if let value { event.append(key: "value", value: value) }
            event.append(key: "requester", value: requester.map(JSONValue.string) ?? .null)
            event.append(key: "eventSeq", value: .number(Double(sequence)))
            event.append(key: "change", value: result.change.map { .string($0.name) } ?? .null)
            event.append(key: "result", value: result.event)
            return JSONValue.object(event).serialized()
        }
        publications.append(Publication(topic: Topic.actions(name), body: recorded.body))
        members.append(key: "eventSeq", value: .number(Double(recorded.seq)))
        return members
    }

    /// The role the row (its JSON `bytes`) declares for `action`, or `unknown_action`.
    static func declaredRole(
        of action: String, in bytes: [UInt8], subject: String, feed: String, id: String
    ) throws(RowCastError) -> ActionRole {
        let actions = (try? JSONParser.parse(bytes))?.objectValue?["actions"]?.arrayValue ?? []
        guard let declared = actions.lazy.compactMap(\.objectValue).first(where: { $0["name"]?.stringValue == action })
        else {
            let names = actions.compactMap { $0.objectValue?["name"]?.stringValue }
            let known =
                names.isEmpty
                ? "the row declares no actions"
                : "the row's actions are " + names.map { "\"\($0)\"" }.joined(separator: ", ")
            throw RowCastError(
                .unknownAction, "\(subject): the row has no action \"\(action)\" (\(known))", field: "action",
                feed: feed, id: id)
        }
        do {
            return try ActionRole(action: declared)
        } catch {
            throw RowCastError(
                .pluginFailed, "\(subject): the row declares action \"\(action)\" wrongly: \(error.message)",
                feed: feed, id: id)
        }
    }

    /// Calls the plugin's action handler for `item` and reads its result.
    private func runActionHandler(
        _ item: ItemInput, action: String, value: JSONValue?, requester: String?, feed name: String, subject: String
    ) throws(RowCastError) -> PluginActionResult {
        var writer = JSONWriter(capacity: item.json.count + 128)
        writer.writeRaw("{\"feed\":")
        writer.write(string: name)
        writer.writeRaw(",\"id\":")
        writer.write(string: item.id)
        writer.writeRaw(",\"action\":")
        writer.write(string: action)
        if let value {
            writer.writeRaw(",\"value\":")
            writer.write(value)
        }
        writer.writeRaw(",\"requester\":")
        writer.write(requester.map(JSONValue.string) ?? .null)
        writer.writeRaw(",\"item\":")
        writer.writeRaw(item.json)
        writer.writeRaw("}")
        switch renderer.act(type: item.type, input: writer.bytes) {
        case .ok(let output):
            guard let parsed = try? JSONParser.parse(output), let result = PluginActionResult(parsed) else {
                let problem = (try? JSONParser.parse(output)).flatMap(PluginActionResult.problem(in:)) ?? "invalid JSON"
                throw RowCastError(.pluginFailed, "\(subject): the plugin returned \(problem)", feed: name, id: item.id)
            }
            return result
        case .rejected(let message, let field, let code):
            let passed: Set<String> = [
                ErrorCode.invalidValue.rawValue, ErrorCode.unknownAction.rawValue, ErrorCode.missingField.rawValue,
            ]
            let errorCode = code.flatMap { passed.contains($0) ? ErrorCode(rawValue: $0) : nil } ?? .invalidField
            throw RowCastError(errorCode, "\(subject): \(message)", field: field, feed: name, id: item.id)
        case .failed(let message):
            throw RowCastError(.pluginFailed, "\(subject): \(message)", feed: name, id: item.id)
        case .faulted(let fault):
            throw RowCastError(
                fault.code, "\(subject): plugin \(fault.plugin) (\(fault.file)) failed: \(fault.reason)", feed: name,
                id: item.id)
        case .noRenderer:
            throw RowCastError(
                .noAction, "\(subject): no loaded plugin handles actions for type \(item.type)", feed: name, id: item.id
            )
        }
    }

    /// `item` with `fields` set in its data (a `null` value removes the field); the other
    /// members are kept as published.
    static func item(
        _ item: ItemInput, updating fields: JSONObject, subject: String, feed: String
    ) throws(RowCastError) -> ItemInput {
        guard let object = (try? JSONParser.parse(item.json))?.objectValue else {
            throw RowCastError(
                .internalError, "\(subject): the stored item is not a JSON object; please report this", feed: feed,
                id: item.id)
        }
        var data = object["data"]?.objectValue ?? JSONObject()
        for entry in fields.entries {
            if entry.value.isNull { data[entry.key] = nil } else { data[entry.key] = entry.value }
        }
        var updated = JSONObject()
        for entry in object.entries where entry.key != "data" { updated.append(key: entry.key, value: entry.value) }
        updated.append(key: "data", value: .object(data))
        return ItemInput(
            id: item.id, type: item.type, section: item.section, sort: item.sort,
            json: JSONValue.object(updated).serialized())
    }
}
