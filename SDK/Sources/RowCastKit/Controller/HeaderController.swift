/// Renders the header row of sections of one or more types. Optional for a plugin.
///
/// The input is `{"id", "type", "order", "header": {...}}`, read through ``SectionHeader``;
/// the output is a ``Row`` like an item's.
public protocol HeaderController {
    /// What the controller reads out of a section header before rendering it.
    associatedtype Model

    /// The section types whose headers this controller renders.
    static var sectionTypes: [String] { get }

    /// Makes the controller; called once per plugin load.
    init()

    /// Reads the model out of a section header, or throws an ``ItemError`` naming the field.
    func model(from header: SectionHeader) throws(ItemError) -> Model

    /// Renders a model into the header row.
    func row(for model: Model, header: SectionHeader) -> Row
}
