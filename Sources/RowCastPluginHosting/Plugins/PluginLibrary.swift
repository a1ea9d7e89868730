#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A plugin shared library opened with `dlopen` from a private copy (``PluginImage``).
///
/// A library is never closed: a Swift library registers metadata with the Swift runtime and
/// cannot be safely unloaded, and a C plugin's descriptor may point into it for as long as any
/// registry holds it. A refused library stays mapped but is never called again.
struct PluginLibrary {
    /// The `dlopen` handle.
    let handle: UnsafeMutableRawPointer
    /// The private copy the library was loaded from; kept open as long as the library is.
    let image: PluginImage

    /// The `dlopen` flags for every plugin.
    ///
    /// - `RTLD_NOW`: unresolved symbols fail the load now, as a refusal, not at the first call.
    /// - `RTLD_LOCAL`: a plugin's symbols never become visible to other plugins.
    /// - `RTLD_DEEPBIND`: a plugin's references to symbols it defines itself bind to its own
    ///   definitions before the global scope (the executable and any `RTLD_GLOBAL` library).
    ///
    /// Why `RTLD_DEEPBIND`: ELF lets a definition in the global scope interpose on a library's
    /// own default-visibility symbols. Every Swift plugin statically contains its own RowCastKit
    /// and rowcastd links RowCastKit too; a plugin binding to the host's copy is harmless while
    /// both are the same source and memory corruption once a plugin is built against another SDK
    /// version. Measured with Swift 6.3 on Linux: swiftc gives public Swift symbols PROTECTED
    /// visibility (`readelf --dyn-syms librowcast-product.so`: 362 protected, 4 default), and
    /// `LD_DEBUG=bindings` shows every RowCastKit reference of the product plugin binding to
    /// itself even with another plugin's RowCastKit loaded `RTLD_GLOBAL`; and neither rowcastd
    /// nor the test binary exports RowCastKit (`nm -D`: 3 symbols). So the Swift SDK is safe
    /// today without the flag. Default-visibility symbols are not: C plugins, C code linked into
    /// a Swift plugin, a host that one day links with `--export-dynamic`. `RTLD_DEEPBIND` covers
    /// all of them from one place in the loader, with no linker flag required of plugin authors
    /// (`-Bsymbolic` would have to be set in every plugin's build, and would add nothing for the
    /// Swift symbols, which are already protected). `PluginInterpositionTests` proves it with a
    /// real load, and shows the same plugin binding to the host's symbol without the flag.
    ///
    /// The costs: no allocation crosses the ABI, so a plugin's `malloc` binding to libc rather
    /// than an allocator the executable might interpose is safe; and sanitizer runtimes (ASan,
    /// TSan, MSan) abort on `RTLD_DEEPBIND`, so when one is loaded the flag is left out.
    static let openFlags: Int32 = RTLD_NOW | RTLD_LOCAL | (sanitizerRuntimeLoaded ? 0 : RTLD_DEEPBIND)

    /// Whether a sanitizer runtime (which refuses `RTLD_DEEPBIND`) is in the process.
    static let sanitizerRuntimeLoaded: Bool = ["__asan_init", "__tsan_init", "__msan_init"].contains { (name: String) in
        dlsym(nil, name) != nil
    }

    /// Opens the private copy `image` of a plugin file.
    static func load(_ image: PluginImage) throws(PluginRefusal) -> PluginLibrary {
        PluginLibrary(handle: try openOrRefuse(image.loadPath, reporting: image.file), image: image)
    }

    /// Looks up the plugin entry symbol in this library only (not in the global scope).
    func entrySymbol(_ name: String) -> UnsafeMutableRawPointer? {
        _ = dlerror()
        return dlsym(handle, name)
    }

    private static func openOrRefuse(
        _ path: String, reporting file: String
    ) throws(PluginRefusal) -> UnsafeMutableRawPointer {
        _ = dlerror()
        guard let handle = dlopen(path, openFlags) else {
            // dlerror names the private copy; name the plugin file instead.
            let detail = (dlerror().map { String(cString: $0) } ?? "unknown dlopen error").replacing(path, with: file)
            throw PluginRefusal(
                file: file,
                code: .openFailed,
                reason:
                    "cannot load the shared library: \(detail); check that it is a plugin built for this system and that its dependencies are installed"
            )
        }
        return handle
    }
}
