import RowCastKit
import Testing

/// Rows serialize to exact bytes; money formats as the feed expects.
@Suite("Row and Money")
struct RowTests {
    @Test("a row serializes to exactly cell, height, content, actions")
    func rowBytes() {
        let row = Row(
            cell: "ProductImageCell",
            height: 120,
            content: ["title": "Tesla", "subtitle": "Operated by \"Tesla\"", "price": "$39999"],
            actions: [
                .select(kind: "show_detail", params: ["id": "p1"]), RowAction(name: "share", kind: "share_sheet"),
            ]
        )
        #expect(
            String(decoding: row.serialized(), as: UTF8.self)
                == #"{"cell":"ProductImageCell","height":120,"content":{"title":"Tesla","subtitle":"Operated by \"Tesla\"","price":"$39999"},"actions":[{"name":"select","kind":"show_detail","params":{"id":"p1"}},{"name":"share","kind":"share_sheet","params":{}}]}"#
        )
    }

    @Test("an empty row still has content and actions; fractional heights keep their fraction")
    func emptyRow() {
        #expect(
            String(decoding: Row(cell: "Spacer", height: 0.5).serialized(), as: UTF8.self)
                == #"{"cell":"Spacer","height":0.5,"content":{},"actions":[]}"#)
    }

    @Test("a row's bytes parse back to the same values")
    func rowParses() throws {
        let row = Row(
            cell: "C\n", height: 44.25, content: ["n": 1, "nested": ["a": [1, 2]]], actions: [.select(kind: "k")])
        let value = try JSONParser.parse(row.serialized())
        #expect(value["cell"] == "C\n")
        #expect(value["height"] == 44.25)
        #expect(value["content"]?["nested"]?["a"] == [1, 2])
        #expect(value["actions"] == [["name": "select", "kind": "k", "params": [:]]])
    }

    @Test(
        "money: integral amounts without a fraction, others with two decimals",
        arguments: [
            (39999.0, "$39999"), (39999.5, "$39999.50"), (39999.05, "$39999.05"), (0, "$0"), (0.5, "$0.50"),
            (0.005, "$0.01"),
            (12.3456, "$12.35"), (19.999, "$20.00"), (-5.25, "-$5.25"), (-7, "-$7"), (1e15, "$1000000000000000"),
            (1e300, "$1e+300"), (9.5e15, "$9500000000000000"), (4_503_599_627_370_495.5, "$4503599627370495.50"),
        ])
    func money(_ amount: Double, _ expected: String) {
        #expect(Money.format(amount) == expected)
    }

    @Test("money with another symbol")
    func moneySymbol() {
        #expect(Money.format(12, symbol: "€") == "€12")
    }
}
