import AdvertisingCell
import RowCastKit
import RowCastKitTesting
import Testing

/// The `advertising` plugin's controllers, through the SDK's test kit.
@Suite struct AdvertisingControllerTests {
    let harness = ControllerHarness<AdvertisingController>()

    @Test("an advertisement renders an AdvertisingCell row whose tap opens its URL")
    func renders() throws {
        let row = try harness.row(
            id: "ad1",
            data: [
                "name": "Garage sale", "operatedBy": "Bob", "price": 10, "image": "https://img/ad.png",
                "url": "https://example.com/sale",
            ])
        #expect(row.cell == "AdvertisingCell")
        #expect(row.height == 80)
        #expect(row.content["price"] == "$10")
        #expect(row.actions == [.select(kind: "open_url", params: ["url": "https://example.com/sale"])])
    }

    @Test("an advertisement without a URL is refused, naming url")
    func refusesWithoutURL() {
        let error = harness.error(id: "ad2", data: ["name": "A", "operatedBy": "B", "price": 1, "image": "i"])
        #expect(error?.field == "url")
    }

    @Test("an advertisement whose URL is not http or https (javascript:) is refused, naming url")
    func refusesScriptURL() {
        let error = harness.error(
            id: "ad3", data: ["name": "A", "operatedBy": "B", "price": 1, "image": "i", "url": "javascript:alert(1)"])
        #expect(error?.field == "url")
        #expect(error?.message.contains("http or https") == true, "\(String(describing: error))")
    }

    @Test("a sponsored section's header shows its title, and Sponsored when it has no disclosure")
    func header() throws {
        let headers = HeaderHarness<SponsoredHeaderController>()
        #expect(
            try headers.row(id: "ads", header: ["title": "Deals"])
                == Row(cell: "SponsoredHeaderCell", height: 44, content: ["title": "Deals", "subtitle": "Sponsored"]))
        #expect(headers.error(id: "ads", header: [:])?.field == "title")
    }
}
