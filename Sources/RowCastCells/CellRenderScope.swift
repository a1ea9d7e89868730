import RowCastJSON

/// What the templates of one row see: the item's field values by field index, its envelope,
/// the render settings, and (only when some template needs Mustache) the Mustache context.
struct CellRenderScope {
    /// The declared fields' values, in field order; nil for an absent optional field.
    var values: [JSONValue?]
    /// The item's id, type and section.
    var envelope: CellEnvelope
    /// Currency and the time of the render.
    var settings: CellRenderSettings
    /// The context Mustache renders over; nil when every template has a plan.
    var mustacheContext: [String: Any]?
}
