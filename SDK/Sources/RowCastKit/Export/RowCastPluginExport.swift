import CRowCastPlugin

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Exports cell controllers over the rowcastd plugin C ABI (`rowcast_plugin.h`).
///
/// A plugin's whole export is one function:
///
/// ```swift
/// @_cdecl("rowcast_plugin_entry")
/// public func rowcastPluginEntry() -> UnsafeRawPointer {
///     RowCastPluginExport.descriptor(name: "product", version: "1.0.0", controllers: [ProductController.self])
/// }
/// ```
public enum RowCastPluginExport {
    /// The `rowcast_plugin` descriptor for these controllers, as the entry symbol must return it.
    ///
    /// The first call for a `name` makes one instance of every controller and builds the
    /// descriptor; it lives for the rest of the process (a Swift library is never unloaded).
    /// Later calls with the same `name` return the same pointer, whatever the other arguments.
    /// Safe to call from any thread.
    ///
    /// A programming error in the arguments (an empty name, no controllers, an empty type, two
    /// controllers claiming one type) is printed to standard error and exported as a descriptor
    /// with no item types, which rowcastd refuses with a message naming the file; it never
    /// crashes the daemon.
    public static func descriptor(
        name: String,
        version: String,
        controllers: [any CellController.Type],
        headers: [any HeaderController.Type] = []
    ) -> UnsafeRawPointer {
        descriptors.withLock { cache in
            if let existing = cache[name] { return existing.pointer }
            let made = DescriptorAddress(
                pointer: makeDescriptor(name: name, version: version, controllers: controllers, headers: headers))
            cache[name] = made
            return made.pointer
        }
    }

    /// The descriptors built so far, by plugin name.
    private static let descriptors = LockedValue<[String: DescriptorAddress]>([:])

    private static func makeDescriptor(
        name: String,
        version: String,
        controllers: [any CellController.Type],
        headers: [any HeaderController.Type]
    ) -> UnsafeRawPointer {
        let runtime = PluginRuntime(name: name, controllers: controllers, headers: headers)
        for problem in runtime.problems {
            reportToStandardError("rowcast plugin \"\(name)\": \(problem); exporting no item types\n")
        }
        let descriptor = UnsafeMutablePointer<rowcast_plugin>.allocate(capacity: 1)
        descriptor.initialize(
            to: rowcast_plugin(
                abi_version: ROWCAST_PLUGIN_ABI_VERSION,
                struct_size: UInt32(MemoryLayout<rowcast_plugin>.size),
                name: leakedCString(name),
                version: leakedCString(version),
                item_types: leakedCStringArray(runtime.itemTypes),
                item_type_count: runtime.itemTypes.count,
                header_types: leakedCStringArray(runtime.headerTypes),
                header_type_count: runtime.headerTypes.count,
                context: Unmanaged.passRetained(runtime).toOpaque(),
                render_item: PluginCallbacks.renderItem,
                render_header: runtime.headerTypes.isEmpty ? nil : PluginCallbacks.renderHeader,
                select: PluginCallbacks.select,
                handle_action: PluginCallbacks.handleAction
            ))
        return UnsafeRawPointer(descriptor)
    }

    /// A NUL-terminated copy of `string` that is never freed.
    private static func leakedCString(_ string: String) -> UnsafePointer<CChar> {
        let utf8 = Array(string.utf8)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count + 1)
        for (offset, byte) in utf8.enumerated() { buffer[offset] = CChar(bitPattern: byte) }
        buffer[utf8.count] = 0
        return UnsafePointer(buffer)
    }

    /// An array of C strings that is never freed (`nil` when `strings` is empty).
    private static func leakedCStringArray(_ strings: [String]) -> UnsafePointer<UnsafePointer<CChar>?>? {
        guard !strings.isEmpty else { return nil }
        let array = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: strings.count)
        for (offset, string) in strings.enumerated() { (array + offset).initialize(to: leakedCString(string)) }
        return UnsafePointer(array)
    }

    private static func reportToStandardError(_ message: String) {
        var bytes = Array(message.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}

/// The address of a descriptor that is immutable once built and never freed, so sharing it
/// between threads is safe; the `Mutex` in ``RowCastPluginExport`` guards the cache itself.
private struct DescriptorAddress: @unchecked Sendable {
    /// The `rowcast_plugin`.
    let pointer: UnsafeRawPointer
}
