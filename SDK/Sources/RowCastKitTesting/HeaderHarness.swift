import RowCastKit

/// Renders section headers through one header controller in a unit test, the way the exported
/// plugin does (`{"id","type","order","header"}` → ``SectionHeader`` → model → ``Row``).
public struct HeaderHarness<Controller: HeaderController> {
    /// The controller headers are rendered through.
    public let controller: Controller

    /// A harness over `controller` (by default a new one, as the plugin makes it).
    public init(_ controller: Controller = Controller()) {
        self.controller = controller
    }

    /// The header row of section `id` whose header fields are `header`; `type` defaults to the
    /// controller's first section type.
    public func row(id: String, type: String? = nil, header: JSONObject) throws(ItemError) -> Row {
        let section = try SectionHeader(json: [
            "id": .string(id), "type": .string(type ?? Controller.sectionTypes.first ?? ""), "order": .null,
            "header": .object(header),
        ])
        return controller.row(for: try controller.model(from: section), header: section)
    }

    /// The error the controller rejects the header with, or nil when it renders.
    public func error(id: String, type: String? = nil, header: JSONObject) -> ItemError? {
        do { _ = try row(id: id, type: type, header: header) } catch { return error }
        return nil
    }
}
