import AdvertisingCell
import RowCastKit

/// The plugin's entry symbol: the `rowcast_plugin` descriptor of the `advertising` plugin.
@_cdecl("rowcast_plugin_entry")
public func rowcastPluginEntry() -> UnsafeRawPointer {
    RowCastPluginExport.descriptor(
        name: "advertising", version: "1.0.0", controllers: [AdvertisingController.self],
        headers: [SponsoredHeaderController.self])
}
