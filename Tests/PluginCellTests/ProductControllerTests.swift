import ProductCell
import RowCastKit
import RowCastKitTesting
import Testing

/// The `product` plugin's controller, through the SDK's test kit.
@Suite struct ProductControllerTests {
    let harness = ControllerHarness<ProductController>()

    @Test("a complete product renders a ProductImageCell row with its price and a show_detail action")
    func renders() throws {
        let row = try harness.row(
            #"{"id":"42","type":"product","data":{"name":"Model 3","operatedBy":"Tesla","price":39999.5,"image":"https://img/42.png"}}"#
        )
        #expect(
            row
                == Row(
                    cell: "ProductImageCell", height: 120,
                    content: [
                        "title": "Model 3", "subtitle": "Operated by Tesla", "price": "$39999.50",
                        "image": "https://img/42.png",
                    ],
                    actions: [.select(kind: "show_detail", params: ["id": "42"])]
                ))
    }

    @Test(
        "a missing or mistyped field is refused, naming the field",
        arguments: [
            (["name": "X", "operatedBy": "Y", "image": "i"] as JSONObject, "price", "missing_field"),
            (["name": "X", "operatedBy": "Y", "price": "cheap", "image": "i"] as JSONObject, "price", "invalid_field"),
        ])
    func refuses(data: JSONObject, field: String, code: String) {
        let error = harness.error(id: "1", data: data)
        #expect(error?.field == field)
        #expect(error?.code.rawValue == code)
    }

    @Test("select publishes show_detail with the item id; another action is refused")
    func select() throws {
        let item = #"{"id":"7","type":"product","data":{"name":"A","operatedBy":"B","price":1,"image":"i"}}"#
        #expect(try harness.select("select", on: item) == ["kind": "show_detail", "id": "7"])
        #expect(throws: ItemError.self) { try harness.select("buy", on: item) }
    }
}
