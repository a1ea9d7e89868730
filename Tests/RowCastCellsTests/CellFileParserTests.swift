import Foundation
import RowCastCells
import RowCastKit
import Testing

/// Cell files: what loads, and every refusal with its line, key and what is allowed.
@Suite struct CellFileParserTests {
    static let article = """
        cells:
          - types: [article]
            cell: ArticleCell
            height: 112
            fields:
              author: string
              avatar: url
              published: date
              title: string
              preview: string?
              likes: integer?
            content:
              author: "{{author}}"
              avatar: "{{avatar}}"
              date: "{{relative_date(published)}}"
              title: "{{uppercased(title)}}"
              preview: "{{#preview}}{{preview}}{{/preview}}{{^preview}}(no preview){{/preview}}"
              likes: "{{count(likes)}}"
              lines: 2
              id: "{{item.id}}"
            actions:
              - name: select
                kind: open_url
                params: {url: "https://example.com/{{item.id}}"}
        """

    func parse(_ text: String) throws(CellFileError) -> [CellDefinition] {
        try CellFileParser(file: "cells.yaml").parse(text)
    }

    func refusal(_ text: String) -> CellFileError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func anArticleCellRendersItsRow() throws {
        let definition = try #require(try parse(Self.article).first)
        #expect(definition.itemTypes == ["article"])
        let data: JSONObject = [
            "author": "Ada", "avatar": "https://img/ada.png", "published": "2026-11-22T09:00:00Z",
            "title": "Hello", "likes": 1234,
        ]
        let now = try #require(CellDate.parse("2026-11-22T12:00:00Z"))
        let row = try definition.row(fields: data, id: "a1", type: "article", section: nil, now: now)
        #expect(row.cell == "ArticleCell")
        #expect(row.height == 112)
        #expect(row.content["author"] == "Ada")
        #expect(row.content["date"] == "3 h ago")
        #expect(row.content["title"] == "HELLO")
        #expect(row.content["preview"] == "(no preview)")
        #expect(row.content["likes"] == "1.2K")
        #expect(row.content["lines"] == 2)
        #expect(row.content["id"] == "a1")
        #expect(row.content.keys == ["author", "avatar", "date", "title", "preview", "likes", "lines", "id"])
        #expect(row.actions == [RowAction(name: "select", kind: "open_url", params: ["url": "https://example.com/a1"])])
    }

    @Test func nothingIsEscapedForHTML() throws {
        let definition = try #require(try parse(Self.article).first)
        let data: JSONObject = [
            "author": "A & <B>", "avatar": "https://x", "published": 0, "title": "t", "preview": "\"quoted\"",
        ]
        let row = try definition.row(fields: data, id: "a", type: "article", section: nil, now: 0)
        #expect(row.content["author"] == "A & <B>")
        #expect(row.content["preview"] == "\"quoted\"")
    }

    @Test func anItemMissingARequiredFieldOrWithAMistypedOneIsRejectedNamingTheField() throws {
        let definition = try #require(try parse(Self.article).first)
        let missing: JSONObject = ["avatar": "https://x", "published": 0, "title": "t"]
        #expect(throws: ItemError.missingField("author")) {
            try definition.row(fields: missing, id: "a", type: "article", section: nil, now: 0)
        }
        let mistyped: JSONObject = ["author": 5, "avatar": "https://x", "published": 0, "title": "t"]
        let error = #expect(throws: ItemError.self) {
            try definition.row(fields: mistyped, id: "a", type: "article", section: nil, now: 0)
        }
        #expect(error?.field == "author")
        #expect(error?.message.contains("must be a string, got number") == true)
        let badDate: JSONObject = ["author": "a", "avatar": "https://x", "published": "yesterday", "title": "t"]
        let dateError = #expect(throws: ItemError.self) {
            try definition.row(fields: badDate, id: "a", type: "article", section: nil, now: 0)
        }
        #expect(dateError?.field == "published")
    }

    @Test func aTypoInAKeyIsRefusedWithItsLineAndTheAllowedKeys() {
        let error = refusal(Self.article.replacingOccurrences(of: "    height: 112", with: "    hieght: 112"))
        #expect(error?.line == 4)
        #expect(error?.key == "cells[0].hieght")
        #expect(error?.problem.contains("unknown key; allowed here: types, section_types, cell, height") == true)
    }

    @Test func aTemplateNamingAnUndeclaredFieldIsRefused() {
        let error = refusal(Self.article.replacingOccurrences(of: "\"{{author}}\"", with: "\"{{auther}}\""))
        #expect(error?.key == "cells[0].content.author")
        #expect(error?.line == 13)
        #expect(
            error?.problem.contains("names \"auther\", which is not a declared field; declared: author, avatar") == true
        )
    }

    @Test func aFieldNamedOnlyInsideAnInvertedSectionIsChecked() {
        let error = refusal(Self.article.replacingOccurrences(of: "(no preview)", with: "{{summary}}"))
        #expect(error?.problem.contains("names \"summary\"") == true)
    }

    @Test func aTransformThatDoesNotFitTheFieldTypeIsRefused() {
        let error = refusal(Self.article.replacingOccurrences(of: "{{count(likes)}}", with: "{{money(author)}}"))
        #expect(error?.key == "cells[0].content.likes")
        #expect(
            error?.problem.contains("applies money(...) to \"author\", a string field; it takes uppercased") == true)
    }

    @Test func anUnknownFieldTypeIsRefusedWithTheAllowedTypes() {
        let error = refusal(Self.article.replacingOccurrences(of: "title: string\n", with: "title: text\n"))
        #expect(error?.key == "cells[0].fields.title")
        #expect(
            error?.problem
                == "unknown type \"text\"; allowed: string, number, integer, bool, url, date, with `?` after it for an optional field"
        )
    }

    @Test func actionsAreChecked() {
        let edit = """
            cells:
              - types: profile_email
                cell: EditableCell
                height: 44
                fields: {email: string, subscribed: bool}
                content: {value: "{{email}}"}
                actions:
                  - {name: edit_email, role: edit, field: mail}
            """
        func problem(_ replacement: String) -> String? {
            refusal(edit.replacingOccurrences(of: "role: edit, field: mail", with: replacement))?.problem
        }
        #expect(
            refusal(edit)?.problem.contains("\"mail\" is not a declared field; declared: email, subscribed") == true)
        #expect(refusal(edit)?.key == "cells[0].actions[0].field")
        #expect(problem("role: edit")?.contains("names the field it changes") == true)
        #expect(problem("role: toggle, field: email")?.contains("a `toggle` changes a bool field") == true)
        #expect(
            problem("role: delete, field: email")?.contains("only `edit` and `toggle` actions name a field") == true)
        #expect(
            problem("role: remove")?.contains("unknown role \"remove\"; allowed: select, edit, toggle, delete, custom")
                == true)
        #expect(
            problem("role: edit, field: email, value: phone")?.contains(
                "unknown value type; allowed: string, email, url, number, integer, bool") == true)
        #expect(problem("role: custom, value: email")?.contains("only `edit` actions take a value type") == true)
    }

    @Test func actionsCarryTheirRoleOnTheRow() throws {
        let file = """
            cells:
              - types: profile_email
                cell: EditableCell
                height: 44
                fields: {email: string, subscribed: bool, visits: integer}
                content: {value: "{{email}}"}
                actions:
                  - {name: edit_email, role: edit, field: email, value: email}
                  - {name: edit_visits, role: edit, field: visits}
                  - {name: subscribe, role: toggle, field: subscribed, kind: switch}
                  - {name: remove, role: delete}
                  - {name: logout, role: custom, kind: logout, params: {who: "{{item.id}}"}}
                  - {name: select, kind: open_url}
            """
        let definition = try #require(try parse(file).first)
        let row = try definition.row(
            fields: ["email": "a@b.c", "subscribed": true, "visits": 3], id: "e", type: "profile_email", section: nil,
            now: 0)
        #expect(
            row.actions == [
                .edit("edit_email", field: "email", value: .email),
                .edit("edit_visits", field: "visits", value: .integer),
                .toggle("subscribe", field: "subscribed", kind: "switch"),
                .delete("remove"),
                .custom("logout", kind: "logout", params: ["who": "e"]),
                .select(kind: "open_url"),
            ])
        #expect(
            try definition.rowBytes(
                fields: ["email": "a@b.c", "subscribed": true, "visits": 3], id: "e", type: "profile_email",
                section: nil, now: 0) == row.serialized())
    }

    @Test func invalidYAMLAndWrongShapesAreRefused() {
        #expect(refusal("cells: [")?.problem.hasPrefix("not valid YAML") == true)
        #expect(refusal("- a")?.problem.contains("a cell file is a mapping with the key `cells`") == true)
        #expect(refusal("cells: []")?.problem == "must be a non-empty list of cell definitions")
        #expect(
            refusal("cells:\n  - cell: X\n    height: 1\n    content: {}")?.problem.contains("names no type") == true)
        #expect(refusal("cells:\n  - types: x\n    cell: X\n    height: -1\n    content: {}")?.key == "cells[0].height")
        #expect(
            refusal("cells:\n  - types: x\n    cell: X\n    height: 1\n    fields: {item: string}\n    content: {}")?
                .problem.contains("reserved") == true)
        #expect(
            refusal("cells:\n  - types: x\n    cell: X\n    height: 1\n    content: {a: \"{{#b}}\"}")?.problem.contains(
                "does not parse") == true)
    }
}
