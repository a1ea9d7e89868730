import RowCastJSON

/// A template that only substitutes values (`Operated by {{operatedBy}}`,
/// `{{money(price)}}`, `{{item.id}}`: no sections, partials, comments or delimiter changes),
/// compiled to text and field references so a row renders without building a Mustache context.
/// The output is the same as Mustache's (CellTemplatePlanTests renders both ways); any other
/// template is rendered by Mustache.
struct CellTemplatePlan: Sendable {
    /// One piece of the output.
    enum Part: Sendable {
        /// Text as written.
        case text(String)
        /// The value of field number `index`, through `transform` when given.
        case field(index: Int, transform: String?)
        /// `item.id`, `item.type` or `item.section`.
        case envelope(CellEnvelopeMember)
    }

    /// The parts, in order.
    let parts: [Part]

    /// The plan of `source` over `fields`, or nil when the template needs Mustache.
    init?(_ source: String, fields: [CellFieldSpec]) {
        var parts: [Part] = []
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { parts.append(.text(String(rest[..<open.lowerBound]))) }
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.range(of: "}}") else { return nil }
            let tag = afterOpen[..<close.lowerBound].trimmingSpaces
            guard let part = Self.part(tag, fields: fields) else { return nil }
            parts.append(part)
            rest = afterOpen[close.upperBound...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        self.parts = parts
    }

    /// The text of the plan for one item (`values` by field index; nil for an absent field).
    func render(values: [JSONValue?], envelope: CellEnvelope, settings: CellRenderSettings) -> String {
        var text = ""
        for part in parts {
            switch part {
            case .text(let literal):
                text += literal
            case .field(let index, let transform):
                guard let value = values[index] else { continue }
                if let transform {
                    text += CellValue.transform(transform, value: value, settings: settings) ?? ""
                } else {
                    text += CellValue.text(of: value)
                }
            case .envelope(let member):
                text += envelope[member] ?? ""
            }
        }
        return text
    }

    /// A tag's part: `name`, `transform(name)` or `item.member`; nil for anything else.
    private static func part(_ tag: Substring, fields: [CellFieldSpec]) -> Part? {
        var name = tag
        var transform: String?
        if let paren = tag.firstIndex(of: "("), tag.last == ")" {
            transform = String(tag[..<paren])
            name = tag[tag.index(after: paren)..<tag.index(before: tag.endIndex)].trimmingSpaces
            guard let transform, !transform.isEmpty, transform.allSatisfy(\.isIdentifierCharacter) else { return nil }
        }
        guard !name.isEmpty, name.allSatisfy({ $0.isIdentifierCharacter || $0 == "." }) else { return nil }
        if let member = CellEnvelopeMember(path: name) { return transform == nil ? .envelope(member) : nil }
        guard let index = fields.firstIndex(where: { $0.name == name }) else { return nil }
        return .field(index: index, transform: transform)
    }
}

/// The envelope members a template can name.
enum CellEnvelopeMember: Sendable {
    case id, type, section

    /// The member `item.id`, `item.type` or `item.section` names.
    init?(path: Substring) {
        switch path {
        case "item.id": self = .id
        case "item.type": self = .type
        case "item.section": self = .section
        default: return nil
        }
    }
}

/// The envelope of the item (or section) being rendered.
struct CellEnvelope {
    var id: String
    var type: String
    var section: String?

    subscript(member: CellEnvelopeMember) -> String? {
        switch member {
        case .id: id
        case .type: type
        case .section: section
        }
    }
}

extension Character {
    /// A letter, a digit or `_`.
    fileprivate var isIdentifierCharacter: Bool { isLetter || isNumber || self == "_" }
}

extension Substring {
    /// Without leading and trailing spaces.
    fileprivate var trimmingSpaces: Substring {
        var result = self
        while result.first == " " { result.removeFirst() }
        while result.last == " " { result.removeLast() }
        return result
    }
}
