import CRowCastPlugin
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Finds, opens and checks cell-controller plugins, and builds the ``PluginRegistry``.
///
/// A plugin is a file named `librowcast-<name>.so` (``fileNamePrefix`` + name +
/// ``fileNameSuffix``) directly in one of the configured directories; subdirectories and other
/// files are ignored. Directories are scanned in the order given, files in byte order of their
/// names, so which of two conflicting plugins wins is deterministic. Each file is opened with
/// `dlopen` (see ``PluginLibrary/openFlags``), its `rowcast_plugin_entry` symbol called, and the
/// descriptor checked, ABI version first. Anything wrong with one file (or a missing directory)
/// becomes a ``PluginRefusal``, logged and kept in the registry, and loading goes on.
///
/// Libraries are never unloaded: a reload (``load(directories:reusing:)`` with the previous
/// registry) reuses a plugin whose file is unchanged (same path, device, inode, size and
/// modification time) and loads a changed file anew, from a private copy if glibc would
/// otherwise return the old mapping.
public struct PluginLoader: Sendable {
    /// Plugin file names start with this.
    public static let fileNamePrefix = "librowcast-"
    /// Plugin file names end with this.
    public static let fileNameSuffix = ".so"
    /// The plugin file name pattern, for messages and docs.
    public static let fileNamePattern = "librowcast-*.so"

    /// Where load events and refusals are logged.
    public let logger: Logger
    /// Where a fresh copy of an already loaded library is written (and unlinked right after
    /// `dlopen`); `$TMPDIR` or `/tmp` by default. It must not be mounted `noexec`.
    public let scratchDirectory: String

    /// A loader that logs to `logger`.
    public init(logger: Logger, scratchDirectory: String? = nil) {
        self.logger = logger
        self.scratchDirectory = scratchDirectory ?? getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// Whether plugins are opened with `RTLD_DEEPBIND`, so that each binds to its own symbols
    /// even when the executable or a global library defines the same ones. True unless a
    /// sanitizer runtime, which refuses that flag, is loaded.
    public static var isolatesPluginSymbols: Bool { PluginLibrary.openFlags & RTLD_DEEPBIND != 0 }

    /// Whether `fileName` (no directory) names a plugin: `librowcast-<something>.so`.
    public static func isPluginFileName(_ fileName: String) -> Bool {
        fileName.hasPrefix(fileNamePrefix) && fileName.hasSuffix(fileNameSuffix)
            && fileName.utf8.count > fileNamePrefix.utf8.count + fileNameSuffix.utf8.count
    }

    /// Loads every plugin in `directories` (a directory listed twice is scanned once) into a
    /// new registry. Plugins of `previous` whose files are unchanged are reused instead of
    /// loaded again.
    public func load(directories: [String], reusing previous: PluginRegistry? = nil) -> PluginRegistry {
        var reusable: [String: LoadedPlugin] = [:]
        for plugin in previous?.plugins ?? [] { reusable[plugin.file] = plugin }

        var builder = PluginRegistry.Builder()
        var seen = Set<String>()
        for directory in directories where seen.insert(directory).inserted {
            let files: [String]
            do {
                files = try Self.pluginFiles(in: directory)
            } catch {
                refuse(error, in: &builder)
                continue
            }
            for file in files {
                do {
                    let plugin = try loadPlugin(file, reusing: reusable[file])
                    if let refusal = builder.add(plugin) {
                        log(refusal)
                    } else {
                        logger.info("loaded plugin", metadata: [
                            "plugin": "\(plugin.name)", "version": "\(plugin.version)", "file": "\(file)",
                            "itemTypes": "\(plugin.itemTypes.joined(separator: ","))",
                            "headerTypes": "\(plugin.headerTypes.joined(separator: ","))",
                        ])
                    }
                } catch {
                    refuse(error, in: &builder)
                }
            }
        }
        return builder.build()
    }

    /// Loads one plugin file (or returns `candidate` when it was loaded from this very file).
    public func loadPlugin(_ file: String, reusing candidate: LoadedPlugin? = nil) throws(PluginRefusal) -> LoadedPlugin {
        guard let identity = PluginFileIdentity.of(file) else {
            throw PluginRefusal(
                file: file,
                code: .fileUnreadable,
                reason: "cannot read the plugin file: \(String(cString: strerror(errno))); check that it is a readable regular file"
            )
        }
        if let candidate, candidate.file == file, candidate.fileIdentity == identity {
            logger.debug("plugin file unchanged, reusing it", metadata: ["plugin": "\(candidate.name)", "file": "\(file)"])
            return candidate
        }
        let library = try PluginLibrary.load(file, scratchDirectory: scratchDirectory)
        guard let symbol = library.entrySymbol(ROWCAST_PLUGIN_ENTRY_SYMBOL) else {
            throw PluginRefusal(
                file: file,
                code: .missingEntry,
                reason: "the library does not export \(ROWCAST_PLUGIN_ENTRY_SYMBOL); a plugin must define it (in Swift: @_cdecl(\"\(ROWCAST_PLUGIN_ENTRY_SYMBOL)\"))"
            )
        }
        let entry = unsafeBitCast(symbol, to: rowcast_plugin_entry_fn.self)
        let info = try PluginDescriptorReader.read(UnsafeRawPointer(entry()), file: file)
        return LoadedPlugin(file: file, identity: identity, library: library, info: info)
    }

    /// The plugin files directly in `directory`, sorted by name.
    static func pluginFiles(in directory: String) throws(PluginRefusal) -> [String] {
        guard let stream = opendir(directory) else {
            throw PluginRefusal(
                file: directory,
                code: .directoryUnreadable,
                reason: "cannot read the plugin directory: \(String(cString: strerror(errno))); create it or remove it from the configuration"
            )
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard isPluginFileName(name) else { continue }
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            names.append(path)
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    private func refuse(_ refusal: PluginRefusal, in builder: inout PluginRegistry.Builder) {
        builder.refuse(refusal)
        log(refusal)
    }

    private func log(_ refusal: PluginRefusal) {
        let level: Logger.Level = refusal.code == .directoryUnreadable ? .warning : .error
        logger.log(level: level, "refused plugin: \(refusal)", metadata: ["file": "\(refusal.file)", "code": "\(refusal.code)"])
    }
}
