@testable import RowCastCells
import RowCastJSON
import Testing

/// Plain templates render by their plan, without Mustache; the output must be Mustache's.
@Suite struct CellTemplatePlanTests {
    static let fields: [CellFieldSpec] = [
        CellFieldSpec(name: "name", type: .string, optional: false),
        CellFieldSpec(name: "price", type: .number, optional: false),
        CellFieldSpec(name: "likes", type: .integer, optional: true),
        CellFieldSpec(name: "when", type: .date, optional: false),
        CellFieldSpec(name: "on", type: .bool, optional: false),
        CellFieldSpec(name: "site", type: .url, optional: true),
    ]

    static let plain = [
        "", "plain text", "{{name}}", "Operated by {{name}}!", "{{ name }}", "{{money(price)}}", "{{count(likes)}}",
        "{{date(when)}} / {{datetime(when)}} / {{relative_date(when)}}",
        "{{uppercased(name)}}{{lowercased(name)}}{{reversed(name)}}",
        "{{capitalized(name)}}", "{{empty(name)}}", "{{on}}", "{{price}}", "{{likes}}", "{{site}}",
        "{{item.id}}-{{item.type}}-{{item.section}}",
        "a {{name}} b {{price}} c", "a } {{name}} { b", "unicode é {{name}} ✓",
    ]
    static let mustacheOnly = [
        "{{#on}}yes{{/on}}", "{{^site}}none{{/site}}", "{{{name}}}", "{{&name}}", "{{! note }}x",
        "{{uppercased(item.id)}}",
    ]

    static let values: [JSONObject] = [
        [
            "name": "Ada <Lovelace> & \"co\"", "price": 39_999.5, "likes": 12_345, "when": "2026-11-22T09:00:00Z",
            "on": true, "site": "https://a.example",
        ],
        ["name": "", "price": 0, "when": 1_700_000_000, "on": false],
        ["name": "élan vital", "price": -5.25, "likes": 999, "when": "2026-11-20", "on": true],
    ]

    func definitions(_ template: String) throws -> (planned: CellDefinition, mustache: CellDefinition) {
        let content = CellContent.template(try CellTemplate(template))
        var definition = CellDefinition(
            file: "t.yaml", line: 1, itemTypes: ["t"], sectionTypes: [], cell: "C", height: 1, currency: "€",
            fields: Self.fields, content: [("text", content)], actions: [])
        definition.needsMustache = true
        return (definition.planned(), definition)
    }

    @Test(arguments: plain)
    func plainTemplatesHaveAPlanAndRenderAsMustacheDoes(template: String) throws {
        let (planned, mustache) = try definitions(template)
        #expect(!planned.needsMustache)
        for values in Self.values {
            let fast = try planned.row(fields: values, id: "i1", type: "t", section: "s", now: 1_795_400_000)
            let slow = try mustache.row(fields: values, id: "i1", type: "t", section: "s", now: 1_795_400_000)
            #expect(fast == slow, "\(template) over \(values)")
            let bytes = try planned.rowBytes(fields: values, id: "i1", type: "t", section: "s", now: 1_795_400_000)
            #expect(bytes == slow.serialized(), "\(template) over \(values)")
        }
    }

    @Test(arguments: mustacheOnly)
    func otherTemplatesAreLeftToMustache(template: String) throws {
        #expect(try definitions(template).planned.needsMustache)
    }
}
