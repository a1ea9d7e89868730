import RowCastJSON

/// One value of a cell's `content` (or of an action's `params`) as a file declares it: a
/// template (every string), a literal number, boolean or null, or an object or array of them.
public indirect enum CellContent: Sendable {
    /// A string: rendered over the item.
    case template(CellTemplate)
    /// A number, boolean or null: copied as it is.
    case literal(JSONValue)
    /// A mapping: its keys in file order.
    case object([(key: String, value: CellContent)])
    /// A sequence.
    case array([CellContent])

    /// The JSON value for one item.
    func render(_ scope: CellRenderScope) -> JSONValue {
        switch self {
        case .template(let template): return .string(template.render(scope))
        case .literal(let value): return value
        case .object(let members):
            return .object(JSONObject(members.map { (key: $0.key, value: $0.value.render(scope)) }))
        case .array(let elements): return .array(elements.map { $0.render(scope) })
        }
    }

    /// Appends the JSON value for one item, as `render(_:)` would serialize it.
    func write(_ scope: CellRenderScope, to writer: inout JSONWriter) {
        switch self {
        case .template(let template): writer.write(string: template.render(scope))
        case .literal(let value): writer.write(value)
        case .object(let members): Self.write(members, scope, to: &writer)
        case .array(let elements):
            writer.writeRaw("[")
            for (offset, element) in elements.enumerated() {
                if offset > 0 { writer.writeRaw(",") }
                element.write(scope, to: &writer)
            }
            writer.writeRaw("]")
        }
    }

    /// Appends `members` as an object.
    static func write(
        _ members: [(key: String, value: CellContent)], _ scope: CellRenderScope, to writer: inout JSONWriter
    ) {
        writer.writeRaw("{")
        for (offset, member) in members.enumerated() {
            if offset > 0 { writer.writeRaw(",") }
            writer.write(string: member.key)
            writer.writeRaw(":")
            member.value.write(scope, to: &writer)
        }
        writer.writeRaw("}")
    }

    /// The same content with a plan for each template that is plain substitutions.
    func planned(fields: [CellFieldSpec]) -> CellContent {
        switch self {
        case .template(var template):
            template.plan = CellTemplatePlan(template.source, fields: fields)
            return .template(template)
        case .literal: return self
        case .object(let members):
            return .object(members.map { (key: $0.key, value: $0.value.planned(fields: fields)) })
        case .array(let elements): return .array(elements.map { $0.planned(fields: fields) })
        }
    }

    /// Every template inside, with the key path that leads to it (`content.title`).
    func templates(at path: String) -> [(path: String, template: CellTemplate)] {
        switch self {
        case .template(let template): return [(path, template)]
        case .literal: return []
        case .object(let members): return members.flatMap { $0.value.templates(at: path + "." + $0.key) }
        case .array(let elements):
            return elements.enumerated().flatMap { $0.element.templates(at: path + "[\($0.offset)]") }
        }
    }
}
