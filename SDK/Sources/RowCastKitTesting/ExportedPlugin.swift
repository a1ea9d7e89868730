import CRowCastPlugin
import RowCastKit

/// A plugin's exported descriptor, called over the C ABI exactly as rowcastd calls it: for
/// tests of the whole export (``RowCastPluginExport``, the entry function, the JSON bytes).
///
/// ```swift
/// let plugin = ExportedPlugin(rowcastPluginEntry())
/// #expect(plugin.itemTypes == ["article"])
/// let row = plugin.render(#"{"id":"1","type":"article","data":{"title":"Hi"}}"#)
/// #expect(row.value?.objectValue?["cell"] == "ArticleCell")
/// ```
///
/// Not `Sendable`: a plugin is called from one thread at a time.
public struct ExportedPlugin {
    /// The descriptor.
    public let descriptor: UnsafePointer<rowcast_plugin>

    /// The plugin behind `descriptor`, what the entry function returns.
    public init(_ descriptor: UnsafeRawPointer) {
        self.descriptor = descriptor.assumingMemoryBound(to: rowcast_plugin.self)
    }

    /// The ABI version it was built for (rowcastd refuses another).
    public var abiVersion: UInt32 { descriptor.pointee.abi_version }
    /// Its name.
    public var name: String { descriptor.pointee.name.map { String(cString: $0) } ?? "" }
    /// Its version.
    public var version: String { descriptor.pointee.version.map { String(cString: $0) } ?? "" }
    /// The item types it renders.
    public var itemTypes: [String] { Self.strings(descriptor.pointee.item_types, descriptor.pointee.item_type_count) }
    /// The section types whose headers it renders.
    public var headerTypes: [String] {
        Self.strings(descriptor.pointee.header_types, descriptor.pointee.header_type_count)
    }

    /// `render_item` with the item `json` (as published).
    public func render(_ json: String) -> PluginReply {
        call(descriptor.pointee.render_item, json)
    }

    /// `render_header` with `{"id","type","order","header"}`.
    public func renderHeader(_ json: String) -> PluginReply {
        call(descriptor.pointee.render_header, json)
    }

    /// `select` with `{"feed","id","action","item"}`.
    public func select(_ json: String) -> PluginReply {
        call(descriptor.pointee.select, json)
    }

    /// `handle_action` (ABI revision 2) with `{"feed","id","action","value"?,"requester"?,"item"}`.
    public func handleAction(_ json: String) -> PluginReply {
        call(descriptor.pointee.handle_action, json)
    }

    private func call(_ function: rowcast_render_fn?, _ input: String) -> PluginReply {
        guard let function else { return .failed(status: -1, output: "the plugin does not implement this call") }
        var output: [UInt8] = []
        let status = withUnsafeMutablePointer(to: &output) { outputPointer in
            var sink = rowcast_sink(opaque: UnsafeMutableRawPointer(outputPointer)) { opaque, bytes, length in
                guard let opaque, let bytes, length > 0 else { return }
                opaque.assumingMemoryBound(to: [UInt8].self).pointee.append(
                    contentsOf: UnsafeRawBufferPointer(start: bytes, count: length))
            }
            return Array(input.utf8).withUnsafeBytes { bytes in
                function(
                    descriptor.pointee.context, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count,
                    &sink)
            }
        }
        let text = String(decoding: output, as: UTF8.self)
        guard let value = try? JSONParser.parse(output) else { return .failed(status: status, output: text) }
        switch status {
        case Int32(ROWCAST_OK.rawValue): return .ok(value)
        case Int32(ROWCAST_ITEM_ERROR.rawValue): return .itemError(value)
        default: return .failed(status: status, output: text)
        }
    }

    private static func strings(_ array: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int) -> [String] {
        guard let array else { return [] }
        return (0..<count).compactMap { array[$0].map { String(cString: $0) } }
    }
}

@available(*, unavailable)
extension ExportedPlugin: Sendable {}
