import Mustache

/// A Mustache template of a cell file (`"{{author}}"`, `"{{relative_date(published)}}"`),
/// rendered as plain text: row content is JSON, not HTML, so nothing is escaped.
public struct CellTemplate: Sendable {
    /// The template as written in the file.
    public let source: String
    /// The compiled template.
    let template: MustacheTemplate
    /// The template as plain substitutions, when it is one (set once the fields are known).
    var plan: CellTemplatePlan?

    /// Compiles `source`; throws Mustache's parse error when it is not a valid template.
    public init(_ source: String) throws {
        self.source = source
        template = try MustacheTemplate(string: "{{%CONTENT_TYPE:TEXT}}" + source)
    }

    /// Renders the template over `context` with Mustache.
    func render(_ context: Any) -> String {
        template.render(context)
    }

    /// Renders the template for one item: by its plan when it has one, else with Mustache.
    func render(_ scope: CellRenderScope) -> String {
        if let plan { return plan.render(values: scope.values, envelope: scope.envelope, settings: scope.settings) }
        return template.render(scope.mustacheContext ?? [:] as [String: Any])
    }
}
