import AdvertisingCell
import ProductCell
import RowCastKit
import RowCastKitTesting
import Testing

/// The test kit's ExportedPlugin: both repository controllers exported in one descriptor and
/// called over the C ABI, as rowcastd calls a plugin.
@Suite struct ExportedPluginTests {
    let plugin = ExportedPlugin(
        RowCastPluginExport.descriptor(
            name: "cell-tests", version: "0.0.1",
            controllers: [ProductController.self, AdvertisingController.self], headers: [SponsoredHeaderController.self]
        ))

    @Test("the descriptor names the plugin, its ABI version and its types")
    func descriptor() {
        #expect(plugin.name == "cell-tests")
        #expect(plugin.version == "0.0.1")
        #expect(plugin.abiVersion == 1)
        #expect(plugin.itemTypes == ["product", "advertising"])
        #expect(plugin.headerTypes == ["sponsored"])
    }

    @Test("render returns the row's JSON; a bad item returns the item error with its code")
    func render() {
        let row = plugin.render(
            #"{"id":"1","type":"product","data":{"name":"A","operatedBy":"B","price":12,"image":"i"}}"#)
        #expect(row.value?.objectValue?["cell"] == "ProductImageCell")
        #expect(row.value?.objectValue?["content"]?.objectValue?["price"] == "$12")
        #expect(plugin.render(#"{"id":"2","type":"product","data":{}}"#).errorCode == "missing_field")
        #expect(plugin.render(#"{"id":"3","type":"nothing"}"#).errorCode == "unknown_type")
    }

    @Test("headers and selects go through the ABI too")
    func headerAndSelect() {
        #expect(
            plugin.renderHeader(#"{"id":"ads","type":"sponsored","order":null,"header":{"title":"T"}}"#).value?
                .objectValue?["cell"] == "SponsoredHeaderCell")
        let item = #"{"id":"9","type":"product","data":{"name":"A","operatedBy":"B","price":1,"image":"i"}}"#
        #expect(
            plugin.select(#"{"feed":"f","id":"9","action":"select","item":\#(item)}"#)
                == .ok(["kind": "show_detail", "id": "9"]))
    }
}
