import RowCastKit

/// Renders `advertising` items of the car-sale feed into `AdvertisingCell` rows; a tap opens
/// the advertiser's URL.
package struct AdvertisingController: CellController {
    /// The fields an advertising row shows.
    package struct Model {
        /// The advertised product (`data.name`).
        let name: String
        /// Who operates the sale (`data.operatedBy`).
        let operatedBy: String
        /// The price in dollars (`data.price`).
        let price: Double
        /// The image URL or asset name (`data.image`).
        let image: String
        /// Where a tap leads (`data.url`).
        let url: String
    }

    /// Renders `advertising` items.
    package static let itemTypes = ["advertising"]

    /// A controller with no state.
    package init() {}

    /// Reads `name`, `operatedBy`, `price`, `image` and `url` from the item's data.
    package func model(from item: Item) throws(ItemError) -> Model {
        Model(
            name: try item.string("name"),
            operatedBy: try item.string("operatedBy"),
            price: try item.number("price"),
            image: try item.string("image"),
            url: try item.url("url")
        )
    }

    /// An 80-point `AdvertisingCell` whose tap opens the URL.
    package func row(for model: Model, item: Item) -> Row {
        Row(
            cell: "AdvertisingCell",
            height: 80,
            content: [
                "title": .string(model.name),
                "subtitle": .string("Operated by \(model.operatedBy)"),
                "price": .string(Money.format(model.price)),
                "image": .string(model.image),
            ],
            actions: [.select(kind: "open_url", params: ["url": .string(model.url)])]
        )
    }

    /// `select` publishes `{"kind": "open_url", "url": <url>}`.
    package func select(action: String, model: Model, item: Item) throws(ItemError) -> JSONObject? {
        guard action == "select" else { throw .unknownAction(action) }
        return ["kind": "open_url", "url": .string(model.url)]
    }
}
