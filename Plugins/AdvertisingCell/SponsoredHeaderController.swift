import RowCastKit

/// Renders the header row of `sponsored` sections: a banner that marks the rows below it as
/// advertising. Header fields: `title` (required) and `disclosure` (optional).
package struct SponsoredHeaderController: HeaderController {
    /// What the banner shows.
    package struct Model {
        /// The banner title (`header.title`).
        let title: String
        /// The small print (`header.disclosure`), "Sponsored" when absent.
        let disclosure: String
    }

    /// Renders headers of `sponsored` sections.
    package static let sectionTypes = ["sponsored"]

    /// A controller with no state.
    package init() {}

    /// Reads `title` and the optional `disclosure`.
    package func model(from header: SectionHeader) throws(ItemError) -> Model {
        Model(title: try header.string("title"), disclosure: try header.optionalString("disclosure") ?? "Sponsored")
    }

    /// A 44-point `SponsoredHeaderCell`.
    package func row(for model: Model, header: SectionHeader) -> Row {
        Row(
            cell: "SponsoredHeaderCell", height: 44,
            content: ["title": .string(model.title), "subtitle": .string(model.disclosure)], actions: [])
    }
}
