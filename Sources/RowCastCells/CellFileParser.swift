import RowCastKit
import Yams

/// Reads one cell file (YAML) into cell definitions, or the first error with its line:
///
/// ```yaml
/// cells:
///   - types: [article]
///     cell: ArticleCell
///     height: 112
///     fields: {author: string, published: date, title: string, preview: string?}
///     content:
///       author: "{{author}}"
///       date: "{{relative_date(published)}}"
///     actions:
///       - {name: select, kind: open_url, params: {url: "{{url}}"}}
/// ```
public struct CellFileParser {
    /// The file's path, for errors and for the definitions' `file`.
    public let file: String

    /// A parser for the file at `file`.
    public init(file: String) { self.file = file }

    static let topKeys = ["cells"]
    static let cellKeys = ["types", "section_types", "cell", "height", "currency", "fields", "content", "actions"]
    static let actionKeys = ["name", "role", "kind", "field", "value", "params"]
    static let roles = ["select", "edit", "toggle", "delete", "custom"]

    /// The definitions of `text`, or the first ``CellFileError``.
    public func parse(_ text: String) throws(CellFileError) -> [CellDefinition] {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw CellFileError(file: file, line: nil, key: "", problem: "not valid YAML: \(error)")
        }
        guard let root, let top = root.mapping else {
            throw fail(root, "", "a cell file is a mapping with the key `cells` (a list of cell definitions)")
        }
        try checkKeys(top, allowed: Self.topKeys, at: "")
        guard let cellsNode = top["cells"] else {
            throw fail(root, "cells", "missing; a cell file lists its cell definitions under `cells`")
        }
        guard let cells = cellsNode.sequence, !cells.isEmpty else {
            throw fail(cellsNode, "cells", "must be a non-empty list of cell definitions")
        }
        let fingerprint = Self.fingerprint(text)
        var definitions: [CellDefinition] = []
        for (index, node) in cells.enumerated() {
            var definition = try definition(node, at: "cells[\(index)]")
            definition.fingerprint = fingerprint
            definitions.append(definition.planned())
        }
        return definitions
    }

    /// FNV-1a over the UTF-8 of `text`.
    static func fingerprint(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    private func definition(_ node: Node, at path: String) throws(CellFileError) -> CellDefinition {
        guard let mapping = node.mapping else {
            throw fail(node, path, "must be a mapping of \(Self.cellKeys.joined(separator: ", "))")
        }
        try checkKeys(mapping, allowed: Self.cellKeys, at: path)
        let itemTypes = try names(mapping["types"], at: path + ".types")
        let sectionTypes = try names(mapping["section_types"], at: path + ".section_types")
        guard !itemTypes.isEmpty || !sectionTypes.isEmpty else {
            throw fail(node, path, "names no type; give `types` (item types) or `section_types` (section header types)")
        }
        let cell = try requiredString(mapping["cell"], in: node, at: path + ".cell")
        guard let heightNode = mapping["height"] else {
            throw fail(node, path + ".height", "missing; the row height in points, a number above 0")
        }
        guard let height = number(heightNode), height > 0, height.isFinite else {
            throw fail(
                heightNode, path + ".height",
                "must be a number above 0, got \(heightNode.scalar?.string ?? "a collection")")
        }
        let currency =
            try mapping["currency"].map { node throws(CellFileError) in
                try requiredString(node, in: node, at: path + ".currency")
            } ?? "$"
        let fields = try fieldSpecs(mapping["fields"], at: path + ".fields")
        guard let contentNode = mapping["content"] else {
            throw fail(node, path + ".content", "missing; the row's content, a mapping of keys to templates or values")
        }
        guard case .object(let content) = try contentValue(contentNode, at: path + ".content") else {
            throw fail(contentNode, path + ".content", "must be a mapping of keys to templates or values")
        }
        let actions = try actionSpecs(mapping["actions"], fields: fields, at: path + ".actions")
        let definition = CellDefinition(
            file: file, line: node.mark?.line ?? 0, itemTypes: itemTypes, sectionTypes: sectionTypes, cell: cell,
            height: height, currency: currency, fields: fields, content: content, actions: actions)
        let check = CellTemplateCheck(fields: fields)
        for (templatePath, template) in definition.templates {
            if let problem = check.problem(in: template) {
                throw CellFileError(
                    file: file, line: line(of: templatePath, in: node), key: path + "." + templatePath,
                    problem: "the template \"\(template.source)\" \(problem)")
            }
        }
        return definition
    }

    private func fieldSpecs(_ node: Node?, at path: String) throws(CellFileError) -> [CellFieldSpec] {
        guard let node else { return [] }
        guard let mapping = node.mapping else {
            throw fail(
                node, path,
                "must be a mapping of field names to types (\(CellFieldType.allowedNames), `?` after the type for an optional field)"
            )
        }
        var specs: [CellFieldSpec] = []
        for (keyNode, valueNode) in mapping {
            guard let name = keyNode.scalar?.string, !name.isEmpty else {
                throw fail(keyNode, path, "field names must be strings")
            }
            guard name != CellDefinition.envelopeName else {
                throw fail(
                    keyNode, path + "." + name,
                    "`\(name)` is reserved for the item's envelope ({{item.id}}, {{item.type}}, {{item.section}}); rename the field"
                )
            }
            guard !name.contains(".") else {
                throw fail(keyNode, path + "." + name, "a field name cannot contain a dot")
            }
            guard var typeName = valueNode.scalar?.string else {
                throw fail(
                    valueNode, path + "." + name,
                    "must be a type: \(CellFieldType.allowedNames), with `?` after it for an optional field")
            }
            let optional = typeName.hasSuffix("?")
            if optional { typeName.removeLast() }
            guard let type = CellFieldType(rawValue: typeName) else {
                throw fail(
                    valueNode, path + "." + name,
                    "unknown type \"\(typeName)\"; allowed: \(CellFieldType.allowedNames), with `?` after it for an optional field"
                )
            }
            specs.append(CellFieldSpec(name: name, type: type, optional: optional))
        }
        return specs
    }

    private func actionSpecs(
        _ node: Node?, fields: [CellFieldSpec], at path: String
    ) throws(CellFileError) -> [CellActionSpec] {
        guard let node else { return [] }
        guard let sequence = node.sequence else {
            throw fail(
                node, path, "must be a list of actions, each a mapping of \(Self.actionKeys.joined(separator: ", "))")
        }
        var actions: [CellActionSpec] = []
        for (index, actionNode) in sequence.enumerated() {
            let actionPath = path + "[\(index)]"
            guard let mapping = actionNode.mapping else {
                throw fail(actionNode, actionPath, "must be a mapping of \(Self.actionKeys.joined(separator: ", "))")
            }
            try checkKeys(mapping, allowed: Self.actionKeys, at: actionPath)
            let name = try requiredString(mapping["name"], in: actionNode, at: actionPath + ".name")
            guard !actions.contains(where: { $0.name == name }) else {
                throw fail(
                    actionNode, actionPath + ".name", "\"\(name)\" is given twice; each action needs its own name")
            }
            let roleName =
                try mapping["role"].map { node throws(CellFileError) in
                    try requiredString(node, in: actionNode, at: actionPath + ".role")
                } ?? "select"
            guard Self.roles.contains(roleName) else {
                throw fail(
                    mapping["role"], actionPath + ".role",
                    "unknown role \"\(roleName)\"; allowed: \(Self.roles.joined(separator: ", "))")
            }
            let kind =
                try mapping["kind"].map { node throws(CellFileError) in
                    try requiredString(node, in: actionNode, at: actionPath + ".kind")
                } ?? roleName
            var field: CellFieldSpec?
            if let fieldNode = mapping["field"] {
                guard roleName == "edit" || roleName == "toggle" else {
                    throw fail(fieldNode, actionPath + ".field", "only `edit` and `toggle` actions name a field")
                }
                let fieldName = try requiredString(fieldNode, in: actionNode, at: actionPath + ".field")
                guard let spec = fields.first(where: { $0.name == fieldName }) else {
                    throw fail(
                        fieldNode, actionPath + ".field",
                        "\"\(fieldName)\" is not a declared field; declared: \(fields.map(\.name).joined(separator: ", "))"
                    )
                }
                field = spec
            }
            if let valueNode = mapping["value"], roleName != "edit" {
                throw fail(valueNode, actionPath + ".value", "only `edit` actions take a value type")
            }
            let role: ActionRole
            switch roleName {
            case "edit":
                guard let field else {
                    throw fail(
                        actionNode, actionPath + ".field", "missing; an `edit` action names the field it changes")
                }
                var valueType = CellActionSpec.defaultValueType(for: field.type)
                if let valueNode = mapping["value"] {
                    let allowed = ActionValueType.allCases.map(\.rawValue)
                    guard let name = valueNode.scalar?.string, let type = ActionValueType(rawValue: name) else {
                        throw fail(
                            valueNode, actionPath + ".value",
                            "unknown value type; allowed: \(allowed.joined(separator: ", "))")
                    }
                    valueType = type
                }
                role = .edit(field: field.name, value: valueType)
            case "toggle":
                guard let field else {
                    throw fail(
                        actionNode, actionPath + ".field", "missing; a `toggle` action names the bool field it changes")
                }
                guard field.type == .bool else {
                    throw fail(
                        mapping["field"], actionPath + ".field",
                        "a `toggle` changes a bool field; \"\(field.name)\" is a \(field.type.rawValue)")
                }
                role = .toggle(field: field.name)
            case "delete": role = .delete
            case "custom": role = .custom
            default: role = .select
            }
            var params: [(key: String, value: CellContent)] = []
            if let paramsNode = mapping["params"] {
                guard case .object(let members) = try contentValue(paramsNode, at: actionPath + ".params") else {
                    throw fail(paramsNode, actionPath + ".params", "must be a mapping of keys to templates or values")
                }
                params = members
            }
            actions.append(CellActionSpec(name: name, role: role, kind: kind, params: params))
        }
        return actions
    }

    private func contentValue(_ node: Node, at path: String) throws(CellFileError) -> CellContent {
        switch node {
        case .scalar(let scalar):
            if scalar.style == .plain, let literal = literal(node) { return .literal(literal) }
            do {
                return .template(try CellTemplate(scalar.string))
            } catch {
                throw fail(node, path, "the template \"\(scalar.string)\" does not parse: \(error)")
            }
        case .mapping(let mapping):
            var members: [(key: String, value: CellContent)] = []
            for (keyNode, valueNode) in mapping {
                guard let key = keyNode.scalar?.string else { throw fail(keyNode, path, "keys must be strings") }
                members.append((key, try contentValue(valueNode, at: path + "." + key)))
            }
            return .object(members)
        case .sequence(let sequence):
            var elements: [CellContent] = []
            for (index, element) in sequence.enumerated() {
                elements.append(try contentValue(element, at: path + "[\(index)]"))
            }
            return .array(elements)
        case .alias:
            throw fail(node, path, "YAML aliases are not supported in cell files")
        }
    }

    /// A plain scalar's number, boolean or null (anything else is a template).
    private func literal(_ node: Node) -> JSONValue? {
        guard let scalar = node.scalar else { return nil }
        switch scalar.string {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null", "~": return .null
        default: return number(node).map { .number($0) }
        }
    }

    private func number(_ node: Node) -> Double? {
        guard let text = node.scalar?.string, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    private func names(_ node: Node?, at path: String) throws(CellFileError) -> [String] {
        guard let node else { return [] }
        if let single = node.scalar?.string, !single.isEmpty { return [single] }
        guard let sequence = node.sequence else {
            throw fail(node, path, "must be a type name or a list of type names")
        }
        var names: [String] = []
        for element in sequence {
            guard let name = element.scalar?.string, !name.isEmpty else {
                throw fail(element, path, "type names must be non-empty strings")
            }
            names.append(name)
        }
        return names
    }

    private func requiredString(_ node: Node?, in parent: Node, at path: String) throws(CellFileError) -> String {
        guard let node else { throw fail(parent, path, "missing; a non-empty string") }
        guard let string = node.scalar?.string, !string.isEmpty else {
            throw fail(node, path, "must be a non-empty string")
        }
        return string
    }

    private func checkKeys(_ mapping: Node.Mapping, allowed: [String], at path: String) throws(CellFileError) {
        var seen: Set<String> = []
        for keyNode in mapping.keys {
            let key = keyNode.scalar?.string ?? ""
            let keyPath = path.isEmpty ? key : path + "." + key
            guard allowed.contains(key) else {
                throw fail(
                    keyNode, keyPath,
                    "unknown key; allowed\(path.isEmpty ? " at the top level" : " here"): \(allowed.joined(separator: ", "))"
                )
            }
            guard seen.insert(key).inserted else {
                throw fail(keyNode, keyPath, "given more than once; give each key once")
            }
        }
    }

    /// The line of the node a template path (`content.title`) leads to inside `definition`.
    private func line(of templatePath: String, in definition: Node) -> Int? {
        var node: Node? = definition
        for part in templatePath.split(separator: ".") {
            let name = String(part)
            if let index = name.firstIndex(of: "["), let mapping = node?.mapping {
                node = mapping[String(name[..<index])]
                let number = Int(name[name.index(after: index)...].dropLast()) ?? 0
                node = node?.sequence.flatMap { number < $0.count ? $0[number] : nil }
            } else if node?.sequence != nil {
                node = node?.sequence?.first(where: { $0.mapping?["name"]?.scalar?.string == name })
            } else {
                node = node?.mapping?[name]
            }
        }
        return (node ?? definition).mark?.line
    }

    private func fail(_ node: Node?, _ key: String, _ problem: String) -> CellFileError {
        CellFileError(file: file, line: node?.mark?.line, key: key, problem: problem)
    }
}
