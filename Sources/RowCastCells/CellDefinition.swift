import RowCastKit

/// One cell type of a cell file: which item types (or section types) it renders, the fields it
/// reads and their types, and the row it makes: cell identifier, height, content templates and
/// actions. It renders through the same interface as a plugin.
public struct CellDefinition: Sendable {
    /// The file that declares it.
    public var file: String
    /// The line of its entry in that file.
    public var line: Int
    /// The item types whose rows it renders.
    public var itemTypes: [String]
    /// The section types whose header rows it renders.
    public var sectionTypes: [String]
    /// The cell's reuse identifier.
    public var cell: String
    /// The row height in points.
    public var height: Double
    /// The symbol `money` writes.
    public var currency: String
    /// The fields it reads, in file order.
    public var fields: [CellFieldSpec]
    /// The row's content, keys in file order.
    public var content: [(key: String, value: CellContent)]
    /// The row's actions.
    public var actions: [CellActionSpec]
    /// A fingerprint of the file's text (FNV-1a, the same in every process), so a change of
    /// the file re-renders the rows of its types, as a changed plugin file does.
    public var fingerprint: UInt64 = 0

    /// The name under which templates see the item's envelope: `{{item.id}}`, `{{item.type}}`,
    /// `{{item.section}}`. No field may have this name.
    public static let envelopeName = "item"

    /// The row for one item or section header: `fields` is the item's `data` (or the header's
    /// `header`); throws an ``ItemError`` naming a required field that is missing or a field
    /// whose value does not fit its declared type.
    public func row(
        fields values: JSONObject, id: String, type: String, section: String?, now: Double
    ) throws(ItemError) -> Row {
        let scope = try self.scope(fields: values, id: id, type: type, section: section, now: now)
        return Row(
            cell: cell,
            height: height,
            content: JSONObject(content.map { (key: $0.key, value: $0.value.render(scope)) }),
            actions: actions.map { action in rowAction(action, scope: scope) }
        )
    }

    /// The row's bytes, as `row(...)` serializes them, written without building the row first.
    public func rowBytes(
        fields values: JSONObject, id: String, type: String, section: String?, now: Double
    ) throws(ItemError) -> [UInt8] {
        let scope = try self.scope(fields: values, id: id, type: type, section: section, now: now)
        var writer = JSONWriter(capacity: 256)
        writer.writeRaw("{\"cell\":")
        writer.write(string: cell)
        writer.writeRaw(",\"height\":")
        writer.write(number: height)
        writer.writeRaw(",\"content\":")
        CellContent.write(content, scope, to: &writer)
        writer.writeRaw(",\"actions\":[")
        for (offset, action) in actions.enumerated() {
            if offset > 0 { writer.writeRaw(",") }
            rowAction(action, scope: scope).write(to: &writer)
        }
        writer.writeRaw("]}")
        return writer.bytes
    }

    /// `action`'s params as the row shows them for this item (without rendering the rest of the row).
    func params(
        of action: CellActionSpec, fields values: JSONObject, id: String, type: String, section: String?, now: Double
    ) throws(ItemError) -> JSONObject {
        let scope = try self.scope(fields: values, id: id, type: type, section: section, now: now)
        return JSONObject(action.params.map { (key: $0.key, value: $0.value.render(scope)) })
    }

    /// The checked field values and what the templates see, or the error naming the field.
    private func scope(
        fields values: JSONObject, id: String, type: String, section: String?, now: Double
    ) throws(ItemError) -> CellRenderScope {
        let settings = CellRenderSettings(currency: currency, now: now)
        var checked = [JSONValue?](repeating: nil, count: fields.count)
        for (index, spec) in fields.enumerated() {
            guard let value = values[spec.name], !value.isNull else {
                if spec.optional { continue }
                throw .missingField(spec.name)
            }
            if let problem = spec.type.problem(with: value) { throw .invalidField(spec.name, problem) }
            checked[index] = value
        }
        let envelope = CellEnvelope(id: id, type: type, section: section)
        return CellRenderScope(
            values: checked, envelope: envelope, settings: settings,
            mustacheContext: needsMustache ? mustacheContext(checked, envelope: envelope, settings: settings) : nil)
    }

    /// Whether some template has no plan and needs the Mustache context.
    var needsMustache = true

    /// The definition with a plan for every template that is plain substitutions.
    func planned() -> CellDefinition {
        var copy = self
        copy.content = content.map { (key: $0.key, value: $0.value.planned(fields: fields)) }
        copy.actions = actions.map { action in
            var action = action
            action.params = action.params.map { (key: $0.key, value: $0.value.planned(fields: fields)) }
            return action
        }
        copy.needsMustache = copy.templates.contains { $0.template.plan == nil }
        copy.rendererIdentity = "cells \(file) \(cell) " + String(fingerprint, radix: 16)
        return copy
    }

    /// What Mustache sees: the envelope under `item`, each present field by name (a bool as a
    /// Bool, for sections; anything else as a ``CellValue`` with the transforms).
    private func mustacheContext(
        _ values: [JSONValue?], envelope: CellEnvelope, settings: CellRenderSettings
    ) -> [String: Any] {
        var context: [String: Any] = [:]
        context.reserveCapacity(fields.count + 1)
        var item: [String: Any] = ["id": envelope.id, "type": envelope.type]
        if let section = envelope.section { item["section"] = section }
        context[Self.envelopeName] = item
        for (index, spec) in fields.enumerated() {
            guard let value = values[index] else { continue }
            if spec.type == .bool, let flag = value.boolValue {
                context[spec.name] = flag
            } else {
                context[spec.name] = CellValue(value: value, type: spec.type, settings: settings)
            }
        }
        return context
    }

    /// The action as the row shows it: name, kind, rendered params, and its role.
    private func rowAction(_ action: CellActionSpec, scope: CellRenderScope) -> RowAction {
        RowAction(
            name: action.name, kind: action.kind,
            params: JSONObject(action.params.map { (key: $0.key, value: $0.value.render(scope)) }), role: action.role)
    }

    /// What names this definition as a renderer: the file, the cell and the file's
    /// fingerprint; stored with each row so a change is seen across restarts. Made once, when
    /// the file is read (the engine asks for it per item).
    public private(set) var rendererIdentity = ""

    /// Every template of the definition with the key path that leads to it.
    var templates: [(path: String, template: CellTemplate)] {
        content.flatMap { $0.value.templates(at: "content." + $0.key) }
            + actions.flatMap { action in
                action.params.flatMap { $0.value.templates(at: "actions.\(action.name).params." + $0.key) }
            }
    }
}
