import CRowCastPlugin
import ProductCell
import RowCastKit

/// `rowcast-bench --sdk-only N`: the product plugin's `render_item` over N car items, called
/// through its exported C descriptor exactly as a plugin host calls it, but linked into this
/// executable: callgrind counts the SDK's own work per item (parsing the item, the controller,
/// writing the row) with its symbols, which a plugin loaded from its private memory-file copy
/// does not show.
enum SDKRenderOnly {
    static func run(items: Int) {
        let descriptor = RowCastPluginExport.descriptor(
            name: "product", version: "bench", controllers: [ProductController.self]
        )
        .assumingMemoryBound(to: rowcast_plugin.self).pointee
        final class Output { var bytes = 0 }
        let output = Output()
        var sink = rowcast_sink(opaque: Unmanaged.passUnretained(output).toOpaque()) { opaque, _, length in
            Unmanaged<Output>.fromOpaque(opaque!).takeUnretainedValue().bytes += length
        }
        // One car item (the end-to-end workload's shape), rendered `items` times: building a
        // different one each time would count the bench's own string work.
        let item = Array(
            #"{"id":"sdk-12345","type":"product","section":"s1","data":{"name":"Tesla Model 3 Long Range 12345","operatedBy":"Tesla Inc.","price":42345,"image":"https://img.example/cars/381.png"}}"#
                .utf8)
        item.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { input in
                for _ in 0..<items {
                    let status = descriptor.render_item(descriptor.context, input.baseAddress, input.count, &sink)
                    precondition(status == 0, "the product plugin refused the item")
                }
            }
        }
        precondition(output.bytes > 0)
    }
}
