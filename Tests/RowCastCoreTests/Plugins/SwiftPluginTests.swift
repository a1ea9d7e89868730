import Foundation
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import Testing

/// The two real Swift plugins, `librowcast-product.so` and `librowcast-advertising.so`, as
/// `swift build` leaves them in the build products directory, loaded and called like rowcastd does.
@Suite("Swift plugins: product and advertising")
struct SwiftPluginTests {
    typealias Support = PluginTestSupport

    /// Loads both real plugins from a directory holding links to the built products.
    private func withRealPlugins(_ body: (PluginRegistry, [String: String]) throws -> Void) throws {
        let product = try Support.builtPlugin("product")
        let advertising = try Support.builtPlugin("advertising")
        try Support.withTemporaryDirectory { directory in
            var files: [String: String] = [:]
            for (name, built) in [("product", product), ("advertising", advertising)] {
                let link = directory + "/librowcast-\(name).so"
                try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: built)
                files[name] = link
            }
            let (loader, _) = Support.loader()
            let registry = loader.load(directories: [directory])
            #expect(registry.refusals.isEmpty, "\(registry.refusals)")
            try body(registry, files)
        }
    }

    private static let tesla =
        #"{"id":"p1","type":"product","section":"cars","sort":1,"data":{"name":"Tesla Model 3","operatedBy":"Tesla","price":39999,"image":"https://img.example/model3.png"}}"#

    @Test("both plugins load with their names, versions and types")
    func loadsBoth() throws {
        try withRealPlugins { registry, files in
            #expect(registry.plugins.map(\.name) == ["advertising", "product"])
            #expect(
                registry.typeEntries == [
                    PluginTypeEntry(
                        type: "advertising", kind: .item, plugin: "advertising", version: "1.0.0",
                        file: files["advertising"]!),
                    PluginTypeEntry(
                        type: "product", kind: .item, plugin: "product", version: "1.0.0", file: files["product"]!),
                    PluginTypeEntry(
                        type: "sponsored", kind: .header, plugin: "advertising", version: "1.0.0",
                        file: files["advertising"]!),
                ])
            let product = try #require(registry.plugin(forItemType: "product"))
            #expect(product.handlesSelect)
            #expect(!product.rendersHeaders)
            #expect(try #require(registry.plugin(forHeaderType: "sponsored")).rendersHeaders)
        }
    }

    @Test("a product renders to the exact row")
    func rendersProduct() throws {
        try withRealPlugins { registry, _ in
            let product = try #require(registry.plugin(forItemType: "product"))
            #expect(
                Support.okText(product.renderItem(Support.bytes(Self.tesla)))
                    == #"{"cell":"ProductImageCell","height":120,"content":{"title":"Tesla Model 3","subtitle":"Operated by Tesla","price":"$39999","image":"https://img.example/model3.png"},"actions":[{"name":"select","kind":"show_detail","params":{"id":"p1"}}]}"#
            )

            let fractional = Self.tesla.replacingOccurrences(of: #""price":39999"#, with: #""price":39999.5"#)
            #expect(
                Support.okText(product.renderItem(Support.bytes(fractional)))?.contains(#""price":"$39999.50""#) == true
            )
        }
    }

    @Test(
        "product items with a missing or mistyped field are rejected, naming the field",
        arguments: [
            (#""price":39999"#, #""cost":39999"#, #"missing field "price""#, "price", "missing_field"),
            (
                #""price":39999"#, #""price":"39999""#, #"field "price" must be a number, got string"#, "price",
                "invalid_field"
            ),
            (
                #""name":"Tesla Model 3""#, #""name":null"#, #"field "name" must be a string, got null"#, "name",
                "invalid_field"
            ),
            (
                #""operatedBy":"Tesla""#, #""operatedBy":["Tesla"]"#,
                #"field "operatedBy" must be a string, got array"#, "operatedBy", "invalid_field"
            ),
            (
                #""image":"https://img.example/model3.png""#, "\"x\":1", #"missing field "image""#, "image",
                "missing_field"
            ),
        ])
    func rejectsBadProduct(find: String, replace: String, message: String, field: String, code: String) throws {
        try withRealPlugins { registry, _ in
            let product = try #require(registry.plugin(forItemType: "product"))
            let input = Self.tesla.replacingOccurrences(of: find, with: replace)
            #expect(
                product.renderItem(Support.bytes(input))
                    == .rejected(PluginCallError(message: message, field: field, code: code)))
        }
    }

    @Test("invalid item JSON is an item error, not a crash")
    func rejectsInvalidJSON() throws {
        try withRealPlugins { registry, _ in
            let product = try #require(registry.plugin(forItemType: "product"))
            #expect(
                product.renderItem(Support.bytes(#"{"id":"p1","type":"product""#))
                    == .rejected(
                        PluginCallError(
                            message: "the item is not valid JSON: expected ',' or '}' in an object at byte 27",
                            code: "invalid_input")))
            #expect(
                product.renderItem([])
                    == .rejected(
                        PluginCallError(
                            message: "the item is not valid JSON: unexpected end of input at byte 0",
                            code: "invalid_input")))
            #expect(
                product.renderItem(Support.bytes("[1]"))
                    == .rejected(
                        PluginCallError(message: "an item must be a JSON object, got array", code: "invalid_input")))
            #expect(
                product.renderItem(Support.bytes(#"{"type":"product","data":{}}"#))
                    == .rejected(PluginCallError(message: #"missing field "id""#, field: "id", code: "missing_field")))
            #expect(
                product.renderItem(Support.bytes(#"{"id":"p","type":"car","data":{}}"#))
                    == .rejected(
                        PluginCallError(
                            message: #"plugin product has no controller for item type "car""#, field: "type",
                            code: "unknown_type")))
        }
    }

    @Test("selecting a product publishes show_detail; an unknown action is rejected")
    func selectsProduct() throws {
        try withRealPlugins { registry, _ in
            let product = try #require(registry.plugin(forItemType: "product"))
            let request = #"{"feed":"cars","id":"p1","action":"select","item":\#(Self.tesla)}"#
            #expect(Support.okText(product.select(Support.bytes(request))) == #"{"kind":"show_detail","id":"p1"}"#)

            let unknown = request.replacingOccurrences(of: #""action":"select""#, with: #""action":"buy""#)
            #expect(
                product.select(Support.bytes(unknown))
                    == .rejected(
                        PluginCallError(message: #"unknown action "buy""#, field: "action", code: "unknown_action")))

            let noItem = #"{"feed":"cars","id":"p1","action":"select"}"#
            #expect(
                product.select(Support.bytes(noItem))
                    == .rejected(
                        PluginCallError(message: #"missing field "item""#, field: "item", code: "missing_field")))
        }
    }

    private static let ad =
        #"{"id":"a1","type":"advertising","section":"cars","data":{"name":"Polestar 2","operatedBy":"Polestar","price":45900.25,"image":"https://img.example/p2.png","url":"https://polestar.example/2"}}"#

    @Test("an advertising item renders to the exact row and opens its URL on select")
    func rendersAdvertising() throws {
        try withRealPlugins { registry, _ in
            let advertising = try #require(registry.plugin(forItemType: "advertising"))
            #expect(
                Support.okText(advertising.renderItem(Support.bytes(Self.ad)))
                    == #"{"cell":"AdvertisingCell","height":80,"content":{"title":"Polestar 2","subtitle":"Operated by Polestar","price":"$45900.25","image":"https://img.example/p2.png"},"actions":[{"name":"select","kind":"open_url","params":{"url":"https://polestar.example/2"}}]}"#
            )
            let request = #"{"feed":"cars","id":"a1","action":"select","item":\#(Self.ad)}"#
            #expect(
                Support.okText(advertising.select(Support.bytes(request)))
                    == #"{"kind":"open_url","url":"https://polestar.example/2"}"#)
        }
    }

    @Test(
        "advertising items with a missing or bad url are rejected, naming the field",
        arguments: [
            (#""url":"https://polestar.example/2""#, #""link":"x""#, #"missing field "url""#, "missing_field"),
            (
                #""url":"https://polestar.example/2""#, #""url":42"#, #"field "url" must be a string, got number"#,
                "invalid_field"
            ),
            (
                #""url":"https://polestar.example/2""#, #""url":"polestar 2""#,
                #"field "url" must be a URL with a scheme such as https://, got "polestar 2""#, "invalid_field"
            ),
        ])
    func rejectsBadAdvertising(find: String, replace: String, message: String, code: String) throws {
        try withRealPlugins { registry, _ in
            let advertising = try #require(registry.plugin(forItemType: "advertising"))
            let input = Self.ad.replacingOccurrences(of: find, with: replace)
            #expect(
                advertising.renderItem(Support.bytes(input))
                    == .rejected(PluginCallError(message: message, field: "url", code: code)))
        }
    }
}
