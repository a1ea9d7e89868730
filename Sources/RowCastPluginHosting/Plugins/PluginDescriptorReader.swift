import CRowCastPlugin

/// What a valid `rowcast_plugin` descriptor says, read once at load.
struct PluginDescriptorInfo {
    /// The descriptor itself (it stays valid while the library is loaded, which is forever).
    let descriptor: UnsafePointer<rowcast_plugin>
    /// A copy of the descriptor's fields as far as its `struct_size` reaches, the rest zero
    /// (so a revision 1 descriptor reads with no `handle_action`).
    let plugin: rowcast_plugin
    /// The ABI revision the descriptor's size covers: 1 (up to `select`) or 2 (`handle_action`).
    let revision: Int
    /// The plugin name.
    let name: String
    /// The plugin version.
    let version: String
    /// The item types, without repeats.
    let itemTypes: [String]
    /// The section types, without repeats.
    let headerTypes: [String]
}

/// Checks a descriptor returned by a plugin's entry function, ABI version first.
enum PluginDescriptorReader {
    /// The ABI version rowcastd speaks.
    static let abiVersion: UInt32 = ROWCAST_PLUGIN_ABI_VERSION
    /// The `struct_size` of a revision 1 descriptor: every field up to and including `select`.
    static let revisionOneSize =
        MemoryLayout<rowcast_plugin>.offset(of: \rowcast_plugin.select)! + MemoryLayout<rowcast_select_fn?>.size
    /// More types than this means a garbage count, not a real plugin.
    static let maximumTypeCount = 4096

    /// Reads and checks the descriptor at `raw`, or throws a refusal naming `file`.
    static func read(_ raw: UnsafeRawPointer?, file: String) throws(PluginRefusal) -> PluginDescriptorInfo {
        func invalid(_ reason: String) -> PluginRefusal {
            PluginRefusal(
                file: file, code: .invalidDescriptor, reason: "\(reason); fix the plugin's descriptor and rebuild it")
        }
        guard let raw else { throw invalid("the entry function \(ROWCAST_PLUGIN_ENTRY_SYMBOL) returned NULL") }

        // abi_version is read before anything else: another ABI may have another layout.
        let version = raw.loadUnaligned(as: UInt32.self)
        guard version == abiVersion else {
            throw PluginRefusal(
                file: file,
                code: .abiMismatch,
                reason:
                    "plugin ABI version \(version), rowcastd speaks \(abiVersion); rebuild the plugin against this rowcastd's rowcast_plugin.h"
            )
        }
        let size = raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        let needed = revisionOneSize
        guard Int(size) >= needed else {
            throw invalid(
                "the descriptor's struct_size is \(size) bytes, ABI version \(abiVersion) needs at least \(needed)")
        }

        let descriptor = raw.assumingMemoryBound(to: rowcast_plugin.self)
        // Only the bytes the plugin declared are read: fields a later revision appended stay zero.
        var plugin = rowcast_plugin()
        let copied = min(Int(size), MemoryLayout<rowcast_plugin>.size)
        withUnsafeMutableBytes(of: &plugin) { $0.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: copied)) }
        let revision = Int(size) >= MemoryLayout<rowcast_plugin>.size ? 2 : 1
        guard let namePointer = plugin.name, let name = String(validatingCString: namePointer), !name.isEmpty else {
            throw invalid("the plugin name is NULL, empty or not UTF-8")
        }
        guard let versionPointer = plugin.version, let pluginVersion = String(validatingCString: versionPointer),
            !pluginVersion.isEmpty
        else {
            throw invalid("plugin \(name): the version is NULL, empty or not UTF-8")
        }
        guard plugin.render_item != nil else { throw invalid("plugin \(name): render_item is NULL") }
        guard plugin.item_type_count > 0 else { throw invalid("plugin \(name) declares no item types") }
        let itemTypes = try strings(
            plugin.item_types, count: plugin.item_type_count, what: "item", plugin: name, invalid: invalid)
        let headerTypes = try strings(
            plugin.header_types, count: plugin.header_type_count, what: "section", plugin: name, invalid: invalid)
        if !headerTypes.isEmpty, plugin.render_header == nil {
            throw invalid("plugin \(name) declares section types but render_header is NULL")
        }
        return PluginDescriptorInfo(
            descriptor: UnsafePointer(descriptor), plugin: plugin, revision: revision, name: name,
            version: pluginVersion, itemTypes: itemTypes, headerTypes: headerTypes)
    }

    private static func strings(
        _ array: UnsafePointer<UnsafePointer<CChar>?>?,
        count: Int,
        what: String,
        plugin: String,
        invalid: (String) -> PluginRefusal
    ) throws(PluginRefusal) -> [String] {
        guard count > 0 else { return [] }
        guard count <= maximumTypeCount else {
            throw invalid("plugin \(plugin) declares \(count) \(what) types, more than \(maximumTypeCount)")
        }
        guard let array else {
            throw invalid("plugin \(plugin): the \(what) type array is NULL but its count is \(count)")
        }
        var result: [String] = []
        var seen = Set<String>()
        for index in 0..<count {
            guard let pointer = array[index], let type = String(validatingCString: pointer), !type.isEmpty else {
                throw invalid("plugin \(plugin): \(what) type #\(index) is NULL, empty or not UTF-8")
            }
            guard seen.insert(type).inserted else {
                throw invalid("plugin \(plugin) lists \(what) type \"\(type)\" twice")
            }
            result.append(type)
        }
        return result
    }
}
