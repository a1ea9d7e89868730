import Mustache

/// Checks, when a cell file loads, that each template names only declared fields (or
/// `item.id`, `item.type`, `item.section`) and applies only transforms that fit the field's
/// type. It renders the template twice over probe values that record every lookup: once with
/// every field present and every boolean true, once with optional fields absent and booleans
/// false, so names inside sections and inverted sections are both seen.
struct CellTemplateCheck {
    /// The declared fields.
    let fields: [CellFieldSpec]

    /// The first problem of `template` (`names "auther", which is not a declared field; declared:
    /// author, title`), or nil.
    func problem(in template: CellTemplate) -> String? {
        let recorder = ProbeRecorder()
        for present in [true, false] {
            _ = template.render(ProbeContext(fields: fields, allPresent: present, recorder: recorder))
        }
        if let unknown = recorder.unknownNames.first {
            let declared = fields.map(\.name) + ["item.id", "item.type", "item.section"]
            return "names \"\(unknown)\", which is not a declared field; declared: \(declared.joined(separator: ", "))"
        }
        if let (transform, field) = recorder.badTransforms.first, let spec = fields.first(where: { $0.name == field }) {
            let allowed = CellValue.transforms(for: spec.type)
            return "applies \(transform)(...) to \"\(field)\", a \(spec.type.rawValue) field; "
                + (allowed.isEmpty
                    ? "a \(spec.type.rawValue) field takes no transform"
                    : "it takes \(allowed.joined(separator: ", "))")
        }
        return nil
    }
}

/// What a probe render looked up.
private final class ProbeRecorder {
    var unknownNames: [String] = []
    var badTransforms: [(transform: String, field: String)] = []
}

/// The root of a probe render: declared fields answer with probe values, anything else is
/// recorded as unknown.
private struct ProbeContext: MustacheParent {
    let fields: [CellFieldSpec]
    let allPresent: Bool
    let recorder: ProbeRecorder

    func child(named name: String) -> Any? {
        if name == CellDefinition.envelopeName {
            return ["id": "id", "type": "type", "section": "section"] as [String: Any]
        }
        guard let spec = fields.first(where: { $0.name == name }) else {
            if !recorder.unknownNames.contains(name) { recorder.unknownNames.append(name) }
            return nil
        }
        if !allPresent && spec.optional { return nil }
        return ProbeValue(spec: spec, truthy: allPresent, recorder: recorder)
    }
}

/// A field's stand-in in a probe render: records transforms that do not fit its type.
private struct ProbeValue: MustacheCustomRenderable, MustacheTransformable, MustacheParent {
    let spec: CellFieldSpec
    let truthy: Bool
    let recorder: ProbeRecorder

    var renderText: String { "x" }
    var isNull: Bool { spec.type == .bool && !truthy }

    func transform(_ name: String) -> Any? {
        if !CellValue.transforms(for: spec.type).contains(name) {
            recorder.badTransforms.append((name, spec.name))
        }
        return "x"
    }

    /// A scalar has no members; inside its section, names are looked up further out.
    func child(named name: String) -> Any? { nil }
}
