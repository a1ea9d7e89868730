import CRowCastPlugin
import Foundation
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// ELF symbol interposition: a symbol in the global scope (the executable, or a library opened
/// `RTLD_GLOBAL`) wins over a library's own definition unless the library is opened with
/// `RTLD_DEEPBIND`. Every Swift plugin carries its own RowCastKit, so the loader must bind a
/// plugin to its own copy.
@Suite("Plugin symbol interposition")
struct PluginInterpositionTests {
    typealias Support = PluginTestSupport

    @Test(
        "a plugin binds to its own symbols even when the global scope defines them too",
        .enabled(if: PluginLoader.isolatesPluginSymbols, "a sanitizer runtime is loaded, which refuses RTLD_DEEPBIND"))
    func pluginBindsToItsOwnSymbols() throws {
        try Support.withTemporaryDirectory { directory in
            // The "host" definition, made global as an exporting executable's would be.
            let host = try Support.compile(["probe_host.c"], into: directory, as: "libprobe-host.so")
            _ = try #require(dlopen(host, RTLD_NOW | RTLD_GLOBAL), "\(String(cString: dlerror()))")

            let pluginDirectory = directory + "/plugins"
            try FileManager.default.createDirectory(atPath: pluginDirectory, withIntermediateDirectories: false)
            let plugin = try Support.compile(
                ["probe_plugin.c", "probe_impl.c"], into: pluginDirectory, as: "librowcast-probe.so")
            let input = Support.bytes(#"{"id":"p","type":"probe","data":{}}"#)

            // Control: opened without RTLD_DEEPBIND, the plugin's call goes to the host's copy,
            // so this test would catch a loader that drops the flag.
            let control = try Support.compile(
                ["probe_plugin.c", "probe_impl.c"], into: directory, as: "libprobe-control.so")
            let handle = try #require(dlopen(control, RTLD_NOW | RTLD_LOCAL))
            let entry = unsafeBitCast(
                try #require(dlsym(handle, "rowcast_plugin_entry")), to: (@convention(c) () -> UnsafeRawPointer).self)
            #expect(Self.renderDirectly(entry(), input) == #"{"cell":"Probe","height":1,"content":{"bound":"host"}}"#)

            let (loader, _) = Support.loader()
            let loaded = try #require(loader.load(directories: [pluginDirectory]).plugin(forItemType: "probe"))
            #expect(loaded.file == plugin)
            #expect(
                Support.okText(loaded.renderItem(input)) == #"{"cell":"Probe","height":1,"content":{"bound":"plugin"}}"#
            )
        }
    }

    /// Calls `render_item` of a raw descriptor without the loader.
    private static func renderDirectly(_ descriptor: UnsafeRawPointer, _ input: [UInt8]) -> String {
        let plugin = descriptor.assumingMemoryBound(to: rowcast_plugin.self).pointee
        var output: [UInt8] = []
        withUnsafeMutablePointer(to: &output) { outputPointer in
            var sink = rowcast_sink(opaque: UnsafeMutableRawPointer(outputPointer)) { opaque, bytes, length in
                opaque!.assumingMemoryBound(to: [UInt8].self).pointee
                    .append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: length))
            }
            input.withUnsafeBytes { bytes in
                _ = plugin.render_item(
                    plugin.context, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count, &sink)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
