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
    public func row(fields values: JSONObject, id: String, type: String, section: String?, now: Double) throws(ItemError) -> Row {
        let settings = CellRenderSettings(currency: currency, now: now)
        var context: [String: Any] = [:]
        context.reserveCapacity(fields.count + 1)
        var envelope: [String: Any] = ["id": id, "type": type]
        if let section { envelope["section"] = section }
        context[Self.envelopeName] = envelope
        for spec in fields {
            guard let value = values[spec.name], !value.isNull else {
                if spec.optional { continue }
                throw .missingField(spec.name)
            }
            if let problem = spec.type.problem(with: value) { throw .invalidField(spec.name, problem) }
            if spec.type == .bool, let flag = value.boolValue {
                context[spec.name] = flag
            } else {
                context[spec.name] = CellValue(value: value, type: spec.type, settings: settings)
            }
        }
        return Row(
            cell: cell,
            height: height,
            content: JSONObject(content.map { (key: $0.key, value: $0.value.render(context)) }),
            actions: actions.map { action in rowAction(action, context: context) }
        )
    }

    /// The action as the row shows it: `edit` and `toggle` also name their field and its type.
    private func rowAction(_ action: CellActionSpec, context: [String: Any]) -> RowAction {
        var params = JSONObject(action.params.map { (key: $0.key, value: $0.value.render(context)) })
        if let field = action.field, let spec = fields.first(where: { $0.name == field }) {
            params.append(key: "field", value: .string(field))
            params.append(key: "value_type", value: .string(spec.type.rawValue))
        }
        return RowAction(name: action.name, kind: action.kind.name, params: params)
    }

    /// What names this definition as a renderer: the file, the cell and the file's
    /// fingerprint; stored with each row so a change is seen across restarts.
    public var rendererIdentity: String {
        "cells \(file) \(cell) " + String(fingerprint, radix: 16)
    }

    /// Every template of the definition with the key path that leads to it.
    var templates: [(path: String, template: CellTemplate)] {
        content.flatMap { $0.value.templates(at: "content." + $0.key) }
            + actions.flatMap { action in action.params.flatMap { $0.value.templates(at: "actions.\(action.name).params." + $0.key) } }
    }
}
