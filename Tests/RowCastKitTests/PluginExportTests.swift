import CRowCastPlugin
import Dispatch
import RowCastKit
import Synchronization
import Testing

/// Controllers exported with `RowCastPluginExport.descriptor`, called through the descriptor's
/// C function pointers exactly as rowcastd calls them.
@Suite("Plugin export over the C ABI")
struct PluginExportTests {
    /// Renders `gadget` items; a tap on one publishes `{"kind":"tapped"}`.
    struct GadgetController: CellController {
        static let itemTypes = ["gadget", "widget"]
        func model(from item: Item) throws(ItemError) -> (name: String, size: Double) {
            (try item.string("name"), try item.optionalNumber("size") ?? 1)
        }
        func row(for model: (name: String, size: Double), item: Item) -> Row {
            Row(
                cell: "GadgetCell", height: 40 * model.size,
                content: ["name": .string(model.name), "type": .string(item.type)],
                actions: [.select(kind: "tap")])
        }
        func select(action: String, model: (name: String, size: Double), item: Item) throws(ItemError) -> JSONObject? {
            switch action {
            case "select": return ["kind": "tapped", "name": .string(model.name)]
            case "noop": return nil
            default: throw .unknownAction(action)
            }
        }
    }

    /// A controller that keeps the default select (no event).
    struct QuietController: CellController {
        static let itemTypes = ["quiet"]
        func model(from item: Item) throws(ItemError) -> String { item.id }
        func row(for model: String, item: Item) -> Row { Row(cell: "Quiet", height: 1) }
    }

    /// Renders `shelf` section headers.
    struct ShelfHeader: HeaderController {
        static let sectionTypes = ["shelf"]
        func model(from header: SectionHeader) throws(ItemError) -> String { try header.string("title") }
        func row(for model: String, header: SectionHeader) -> Row {
            Row(cell: "ShelfHeader", height: 30, content: ["title": .string(model)])
        }
    }

    /// Another controller claiming `gadget`: a programming error.
    struct RivalController: CellController {
        static let itemTypes = ["gadget"]
        func model(from item: Item) throws(ItemError) -> Int { 0 }
        func row(for model: Int, item: Item) -> Row { Row(cell: "Rival", height: 1) }
    }

    private static var gadgets: UnsafePointer<rowcast_plugin> {
        RowCastPluginExport.descriptor(
            name: "kit-test-gadgets", version: "2.1.0",
            controllers: [GadgetController.self, QuietController.self], headers: [ShelfHeader.self]
        ).assumingMemoryBound(to: rowcast_plugin.self)
    }

    /// Calls `function` with `input` and returns the status and what went to the sink.
    private func call(
        _ function: rowcast_render_fn?, _ input: String,
        context: UnsafeMutableRawPointer? = Self.gadgets.pointee.context
    ) -> (Int32, String) {
        guard let function else { return (-1, "no function") }
        var output: [UInt8] = []
        let status = withUnsafeMutablePointer(to: &output) { outputPointer in
            var sink = rowcast_sink(opaque: UnsafeMutableRawPointer(outputPointer)) { opaque, bytes, length in
                opaque!.assumingMemoryBound(to: [UInt8].self).pointee.append(
                    contentsOf: UnsafeRawBufferPointer(start: bytes, count: length))
            }
            return Array(input.utf8).withUnsafeBytes { bytes in
                function(context, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count, &sink)
            }
        }
        return (status, String(decoding: output, as: UTF8.self))
    }

    private let ok = Int32(ROWCAST_OK.rawValue)
    private let itemError = Int32(ROWCAST_ITEM_ERROR.rawValue)

    @Test("the descriptor carries the ABI version, size, name, version and types")
    func descriptor() {
        let plugin = Self.gadgets.pointee
        #expect(plugin.abi_version == ROWCAST_PLUGIN_ABI_VERSION)
        #expect(Int(plugin.struct_size) == MemoryLayout<rowcast_plugin>.size)
        #expect(String(cString: plugin.name) == "kit-test-gadgets")
        #expect(String(cString: plugin.version) == "2.1.0")
        #expect(
            (0..<plugin.item_type_count).map { String(cString: plugin.item_types[$0]!) } == [
                "gadget", "widget", "quiet",
            ])
        #expect((0..<plugin.header_type_count).map { String(cString: plugin.header_types[$0]!) } == ["shelf"])
        #expect(plugin.context != nil)
        #expect(plugin.render_item != nil)
        #expect(plugin.render_header != nil)
        #expect(plugin.select != nil)
    }

    @Test("the descriptor is built once per name and shared across threads")
    func builtOnce() async {
        let addresses = await withTaskGroup(of: UInt.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    UInt(
                        bitPattern: RowCastPluginExport.descriptor(
                            name: "kit-test-once", version: "1", controllers: [QuietController.self]))
                }
            }
            var all: Set<UInt> = []
            for await address in group { all.insert(address) }
            return all
        }
        #expect(addresses.count == 1)
        #expect(UInt(bitPattern: Self.gadgets) == UInt(bitPattern: Self.gadgets))
    }

    @Test("render dispatches by item type and writes the row")
    func render() {
        let plugin = Self.gadgets.pointee
        #expect(
            call(plugin.render_item, #"{"id":"g1","type":"gadget","data":{"name":"Sprocket","size":2}}"#)
                == (
                    ok,
                    #"{"cell":"GadgetCell","height":80,"content":{"name":"Sprocket","type":"gadget"},"actions":[{"name":"select","kind":"tap","params":{}}]}"#
                ))
        #expect(
            call(plugin.render_item, #"{"id":"w1","type":"widget","data":{"name":"W"}}"#).1.contains(
                #""type":"widget""#))
        #expect(
            call(plugin.render_item, #"{"id":"q","type":"quiet"}"#) == (
                ok, #"{"cell":"Quiet","height":1,"content":{},"actions":[]}"#
            ))
    }

    @Test(
        "calls from several threads at once each get their own row (the ABI asks for one thread, a plugin's tests may not)"
    )
    func concurrentRenders() {
        let wrong = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            let plugin = Self.gadgets.pointee
            for index in 0..<500 {
                let name = "G\(thread)-\(index)"
                let header = index % 5 == 0
                let (status, row) =
                    header
                    ? call(plugin.render_header, #"{"id":"s","type":"shelf","header":{"title":"\#(name)"}}"#)
                    : call(plugin.render_item, #"{"id":"g","type":"gadget","data":{"name":"\#(name)"}}"#)
                let expected =
                    header
                    ? #"{"cell":"ShelfHeader","height":30,"content":{"title":"\#(name)"},"actions":[]}"#
                    : #"{"cell":"GadgetCell","height":40,"content":{"name":"\#(name)","type":"gadget"},"actions":[{"name":"select","kind":"tap","params":{}}]}"#
                if status != ok || row != expected { wrong.add(1, ordering: .relaxed) }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
        // The kept buffer is given back: a call after them all renders as before.
        #expect(
            call(Self.gadgets.pointee.render_item, #"{"id":"q","type":"quiet"}"#) == (
                ok, #"{"cell":"Quiet","height":1,"content":{},"actions":[]}"#
            ))
    }

    @Test(
        "item errors come back as ROWCAST_ITEM_ERROR with message, field and code",
        arguments: [
            (
                #"{"id":"g1","type":"gadget","data":{}}"#,
                #"{"message":"missing field \"name\"","field":"name","code":"missing_field"}"#
            ),
            (
                #"{"id":"g1","type":"gadget","data":{"name":7}}"#,
                #"{"message":"field \"name\" must be a string, got number","field":"name","code":"invalid_field"}"#
            ),
            (
                #"{"id":"g1","type":"nope","data":{}}"#,
                #"{"message":"plugin kit-test-gadgets has no controller for item type \"nope\"","field":"type","code":"unknown_type"}"#
            ),
            (
                #"{"id":"g1","#,
                #"{"message":"the item is not valid JSON: expected a string key at byte 11","code":"invalid_input"}"#
            ),
            (
                "",
                #"{"message":"the item is not valid JSON: unexpected end of input at byte 0","code":"invalid_input"}"#
            ),
            (
                "\u{0}",
                #"{"message":"the item is not valid JSON: unexpected character '0x0' at byte 0","code":"invalid_input"}"#
            ),
            (
                String(repeating: "[", count: 10_000),
                #"{"message":"the item is not valid JSON: nesting deeper than 64 levels at byte 64","code":"invalid_input"}"#
            ),
            ("42", #"{"message":"an item must be a JSON object, got number","code":"invalid_input"}"#),
        ])
    func itemErrors(input: String, expected: String) {
        #expect(call(Self.gadgets.pointee.render_item, input) == (itemError, expected))
    }

    @Test("a NULL sink or context is a plugin error, not a crash")
    func nullArguments() {
        let plugin = Self.gadgets.pointee
        #expect(plugin.render_item!(plugin.context, nil, 0, nil) == Int32(ROWCAST_PLUGIN_ERROR.rawValue))
        #expect(call(plugin.render_item, "{}", context: nil).0 == Int32(ROWCAST_PLUGIN_ERROR.rawValue))
        var sink = rowcast_sink(opaque: nil, write: nil)
        #expect(plugin.select!(plugin.context, nil, 0, &sink) == Int32(ROWCAST_PLUGIN_ERROR.rawValue))
    }

    @Test("select returns the event, null for no event, an item error for an unknown action")
    func select() {
        let plugin = Self.gadgets.pointee
        let item = #"{"id":"g1","type":"gadget","data":{"name":"Sprocket"}}"#
        #expect(
            call(plugin.select, #"{"feed":"f","id":"g1","action":"select","item":\#(item)}"#) == (
                ok, #"{"kind":"tapped","name":"Sprocket"}"#
            ))
        #expect(call(plugin.select, #"{"feed":"f","id":"g1","action":"noop","item":\#(item)}"#) == (ok, "null"))
        #expect(
            call(plugin.select, #"{"feed":"f","id":"q","action":"select","item":{"id":"q","type":"quiet"}}"#) == (
                ok, "null"
            ))
        #expect(
            call(plugin.select, #"{"feed":"f","id":"g1","action":"buy","item":\#(item)}"#)
                == (itemError, #"{"message":"unknown action \"buy\"","field":"action","code":"unknown_action"}"#))
        #expect(
            call(
                plugin.select, #"{"feed":"f","id":"g1","action":"select","item":{"id":"g1","type":"gadget","data":{}}}"#
            )
                == (itemError, #"{"message":"missing field \"name\"","field":"name","code":"missing_field"}"#))
        #expect(
            call(plugin.select, #"{"feed":"f","id":"g1","item":\#(item)}"#)
                == (itemError, #"{"message":"missing field \"action\"","field":"action","code":"missing_field"}"#))
        #expect(
            call(plugin.select, "[]") == (
                itemError, #"{"message":"a select request must be a JSON object, got array","code":"invalid_input"}"#
            ))
        #expect(call(plugin.select, "{").1.contains("the select request is not valid JSON"))
    }

    @Test("headers render through render_header")
    func header() {
        let plugin = Self.gadgets.pointee
        #expect(
            call(plugin.render_header, #"{"id":"s1","type":"shelf","order":1,"header":{"title":"Top"}}"#)
                == (ok, #"{"cell":"ShelfHeader","height":30,"content":{"title":"Top"},"actions":[]}"#))
        #expect(
            call(plugin.render_header, #"{"id":"s1","type":"shelf","header":{}}"#)
                == (itemError, #"{"message":"missing field \"title\"","field":"title","code":"missing_field"}"#))
        #expect(
            call(plugin.render_header, #"{"id":"s1","type":"aisle"}"#).1.contains(
                #"no controller for section type \"aisle\""#))
    }

    @Test("a plugin without header controllers has no render_header")
    func noHeaders() {
        let plugin = RowCastPluginExport.descriptor(
            name: "kit-test-quiet", version: "1", controllers: [QuietController.self]
        )
        .assumingMemoryBound(to: rowcast_plugin.self).pointee
        #expect(plugin.render_header == nil)
        #expect(plugin.header_type_count == 0)
        #expect(plugin.item_type_count == 1)
    }

    @Test("two controllers claiming one type export no item types, so rowcastd refuses the plugin")
    func duplicateTypes() {
        let plugin = RowCastPluginExport.descriptor(
            name: "kit-test-rivals", version: "1", controllers: [GadgetController.self, RivalController.self]
        )
        .assumingMemoryBound(to: rowcast_plugin.self).pointee
        #expect(plugin.item_type_count == 0)
        #expect(plugin.abi_version == ROWCAST_PLUGIN_ABI_VERSION)
        let none = RowCastPluginExport.descriptor(name: "kit-test-none", version: "1", controllers: [])
            .assumingMemoryBound(to: rowcast_plugin.self).pointee
        #expect(none.item_type_count == 0)
    }
}
