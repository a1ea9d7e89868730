import Mustache

/// A Mustache template of a cell file (`"{{author}}"`, `"{{relative_date(published)}}"`),
/// rendered as plain text: row content is JSON, not HTML, so nothing is escaped.
public struct CellTemplate: Sendable {
    /// The template as written in the file.
    public let source: String
    /// The compiled template.
    let template: MustacheTemplate

    /// Compiles `source`; throws Mustache's parse error when it is not a valid template.
    public init(_ source: String) throws {
        self.source = source
        template = try MustacheTemplate(string: "{{%CONTENT_TYPE:TEXT}}" + source)
    }

    /// Renders the template over `context`.
    func render(_ context: Any) -> String {
        template.render(context)
    }
}
