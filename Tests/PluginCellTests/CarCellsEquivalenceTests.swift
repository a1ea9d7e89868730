import AdvertisingCell
import Foundation
import ProductCell
import RowCastCells
import RowCastKit
import Testing

/// Tests/Fixtures/cells/cars.yaml makes the same rows, byte for byte, as the Swift car
/// plugins, so `rowcast-bench cells` compares like with like.
@Suite struct CarCellsEquivalenceTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/cells/cars.yaml").path

    static func catalog() throws -> CellCatalog {
        var catalog = CellCatalog()
        catalog.add(file: file)
        if let refusal = catalog.refusals.first { throw refusal }
        return catalog
    }

    static func cellRow(_ catalog: CellCatalog, _ item: Item) throws -> [UInt8] {
        let definition = try #require(catalog.definition(forItemType: item.type))
        let bytes = try definition.rowBytes(
            fields: item.data, id: item.id, type: item.type, section: item.section, now: 0)
        #expect(
            bytes
                == (try definition.row(fields: item.data, id: item.id, type: item.type, section: item.section, now: 0)
                    .serialized()))
        return bytes
    }

    @Test(arguments: [39_999, 12.5, 0, -5.25, 1e16])
    func productRowsAreTheSame(price: Double) throws {
        let item = try Item(object: [
            "id": "car-1", "type": "product", "section": "s0",
            "data": [
                "name": "Tesla \"Model\" 3 é", "operatedBy": "Tesla Inc.", "price": .number(price),
                "image": "https://img/1.png",
            ],
        ])
        let controller = ProductController()
        let plugin = controller.row(for: try controller.model(from: item), item: item).serialized()
        #expect(try Self.cellRow(try Self.catalog(), item) == plugin)
    }

    @Test func advertisingRowsAreTheSame() throws {
        let item = try Item(object: [
            "id": "ad-1", "type": "advertising",
            "data": [
                "name": "Garage sale", "operatedBy": "Bob's Cars", "price": 1500, "image": "https://img/ad.png",
                "url": "https://ads.example/1",
            ],
        ])
        let controller = AdvertisingController()
        let plugin = controller.row(for: try controller.model(from: item), item: item).serialized()
        #expect(try Self.cellRow(try Self.catalog(), item) == plugin)
    }

    @Test func theSameItemsAreRefusedForTheSameField() throws {
        let catalog = try Self.catalog()
        let item = try Item(object: [
            "id": "ad-2", "type": "advertising",
            "data": ["name": "x", "operatedBy": "y", "price": 1, "image": "i", "url": "not a url"],
        ])
        let definition = try #require(catalog.definition(forItemType: "advertising"))
        let cellError = #expect(throws: ItemError.self) {
            try definition.row(fields: item.data, id: item.id, type: item.type, section: nil, now: 0)
        }
        let pluginError = #expect(throws: ItemError.self) { try AdvertisingController().model(from: item) }
        #expect(cellError?.field == pluginError?.field)
        #expect(cellError?.code == pluginError?.code)
    }
}
