import RowCastKit

/// What an action of a declarative cell does when a client selects it: the event it publishes
/// and the change it makes, by its role.
struct CellActionHandler {
    /// The cell.
    let definition: CellDefinition
    /// The action selected.
    let action: CellActionSpec
    /// The time params are rendered at.
    let now: Double

    /// The result for `value` (checked by rowcastd against the role) on `item` (its JSON).
    func result(value: JSONValue?, item: JSONValue?) throws(ItemError) -> ActionResult {
        guard let itemObject = item?.objectValue else {
            throw ItemError(code: .invalidInput, message: "the select request has no item object")
        }
        let parsed = try Item(object: itemObject)
        var event: JSONObject = ["kind": .string(action.kind), "action": .string(action.name)]
        if let value { event.append(key: "value", value: value) }
        if !action.params.isEmpty {
            // The params as the row shows them, for the producer: rendered over the item as it is.
            let shown = try definition.params(
                of: action, fields: parsed.data, id: parsed.id, type: parsed.type, section: parsed.section, now: now)
            for (key, member) in shown.entries where event[key] == nil { event.append(key: key, value: member) }
        }
        switch action.role {
        case .edit(let field, _):
            return ActionResult(event: event, change: .update([field: value ?? .null]))
        case .toggle(let field):
            let current = parsed.data[field]?.boolValue ?? false
            return ActionResult(event: event, change: .update([field: value ?? .bool(!current)]))
        case .delete:
            return ActionResult(event: event, change: .delete)
        case .select, .custom:
            return ActionResult(event: event)
        }
    }
}
