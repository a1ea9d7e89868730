import RowCastKit

/// Renders `product` items of the car-sale feed into `ProductImageCell` rows; a tap shows the
/// product's detail.
package struct ProductController: CellController {
    /// The fields a product row shows.
    package struct Model {
        /// The product name (`data.name`).
        let name: String
        /// Who operates the sale (`data.operatedBy`).
        let operatedBy: String
        /// The price in dollars (`data.price`).
        let price: Double
        /// The image URL or asset name (`data.image`).
        let image: String
    }

    /// Renders `product` items.
    package static let itemTypes = ["product"]

    /// A controller with no state.
    package init() {}

    /// Reads `name`, `operatedBy`, `price` and `image` from the item's data.
    package func model(from item: Item) throws(ItemError) -> Model {
        Model(
            name: try item.string("name"),
            operatedBy: try item.string("operatedBy"),
            price: try item.number("price"),
            image: try item.string("image")
        )
    }

    /// A 120-point `ProductImageCell` whose tap shows the detail of the item.
    package func row(for model: Model, item: Item) -> Row {
        Row(
            cell: "ProductImageCell",
            height: 120,
            content: [
                "title": .string(model.name),
                "subtitle": .string("Operated by \(model.operatedBy)"),
                "price": .string(Money.format(model.price)),
                "image": .string(model.image),
            ],
            actions: [.select(kind: "show_detail", params: ["id": .string(item.id)])]
        )
    }

    /// `select` publishes `{"kind": "show_detail", "id": <item id>}`.
    package func select(action: String, model: Model, item: Item) throws(ItemError) -> JSONObject? {
        guard action == "select" else { throw .unknownAction(action) }
        return ["kind": "show_detail", "id": .string(item.id)]
    }
}
