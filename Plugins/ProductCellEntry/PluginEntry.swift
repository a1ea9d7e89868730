import ProductCell
import RowCastKit

/// The plugin's entry symbol: the `rowcast_plugin` descriptor of the `product` plugin.
@_cdecl("rowcast_plugin_entry")
public func rowcastPluginEntry() -> UnsafeRawPointer {
    RowCastPluginExport.descriptor(name: "product", version: "1.0.0", controllers: [ProductController.self])
}
