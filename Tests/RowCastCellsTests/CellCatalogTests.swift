import Foundation
import RowCastCells
import Testing

/// A cells directory: each file loads or is refused on its own; one type has one cell.
@Suite struct CellCatalogTests {
    static func cell(_ type: String, cell: String = "C") -> String {
        "cells:\n  - types: [\(type)]\n    cell: \(cell)\n    height: 44\n    fields: {name: string}\n    content: {name: \"{{name}}\"}\n"
    }

    func directory(_ files: [String: String]) throws -> String {
        let path = NSTemporaryDirectory() + "rowcast-cells-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8)
        }
        return path
    }

    @Test func aFileWithAnErrorIsRefusedAndTheRestLoad() throws {
        let path = try directory([
            "a.yaml": Self.cell("article"),
            "b.yaml": Self.cell("recipe").replacingOccurrences(of: "height", with: "hight"),
            "c.yml": Self.cell("product"),
            "notes.txt": "not a cell file",
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let catalog = CellCatalog.load(directory: path)
        #expect(catalog.itemTypes == ["article", "product"])
        #expect(catalog.refusals.count == 1)
        #expect(catalog.refusals.first?.description.hasPrefix(path + "/b.yaml:4: cells[0].hight: unknown key") == true)
    }

    @Test func twoFilesClaimingOneTypeKeepTheFirstAndNameIt() throws {
        let path = try directory([
            "a.yaml": Self.cell("article", cell: "First"),
            "b.yaml": Self.cell("article", cell: "Second")
                + "  - types: [other]\n    cell: O\n    height: 1\n    content: {}\n",
        ])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let catalog = CellCatalog.load(directory: path)
        #expect(catalog.definition(forItemType: "article")?.cell == "First")
        #expect(catalog.definition(forItemType: "other") == nil)  // the whole file is refused
        #expect(
            catalog.refusals.map(\.problem) == [
                "item type \"article\" is already claimed by \(path)/a.yaml:2; one type has one cell"
            ])
    }

    @Test func aMissingDirectoryIsAnEmptyCatalog() {
        let catalog = CellCatalog.load(directory: "/nonexistent/rowcast-cells")
        #expect(catalog.definitions.isEmpty)
        #expect(catalog.refusals.isEmpty)
    }
}
