import CRowCastPlugin
import Logging
import RowCastSupport

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
/// Every file is loaded from a private copy (``PluginImage``), so overwriting a loaded file in
/// place never touches the loaded code. Libraries are never unloaded: a reload
/// (``load(directories:reusing:)`` with the previous registry) reuses a plugin whose file is
/// unchanged (same path, device, inode, size and modification time) and loads a changed file
/// anew. A changed file that is refused keeps its previous version serving.
public struct PluginLoader: Sendable {
    /// Plugin file names start with this.
    public static let fileNamePrefix = "librowcast-"
    /// Plugin file names end with this.
    public static let fileNameSuffix = ".so"
    /// The plugin file name pattern, for messages and docs.
    public static let fileNamePattern = "librowcast-*.so"

    /// Where load events and refusals are logged.
    public let logger: Logger

    /// A loader that logs to `logger`.
    public init(logger: Logger) {
        self.logger = logger
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
        load(scan: PluginScan(directories: directories), reusing: previous)
    }

    /// Loads the plugin files `scan` found into a new registry, reusing those of `previous`
    /// whose files are unchanged.
    public func load(scan: PluginScan, reusing previous: PluginRegistry? = nil) -> PluginRegistry {
        Self.build(scan: scan, previous: previous, logger: logger) {
            file, candidate throws(PluginRefusal) in
            try loadPlugin(file, reusing: candidate)
        }
    }

    /// Builds a table of the plugin files `scan` found with `load` (which gets each file and
    /// the plugin `previous` had from that file, if any). A file that `load` refuses keeps the
    /// plugin `previous` had from it, when there was one, and the refusal is recorded all the
    /// same; so is each directory the scan refused.
    public static func build<Plugin: RegisteredPlugin>(
        scan: PluginScan, previous: PluginTable<Plugin>?, logger: Logger,
        load: (String, Plugin?) throws(PluginRefusal) -> Plugin
    ) -> PluginTable<Plugin> {
        var reusable: [String: Plugin] = [:]
        for plugin in previous?.plugins ?? [] { reusable[plugin.file] = plugin }

        var builder = PluginTable<Plugin>.Builder()
        func refuse(_ refusal: PluginRefusal) {
            builder.refuse(refusal)
            log(refusal, logger: logger)
        }
        for directory in scan.directories {
            let files: [String]
            switch directory.files {
            case .success(let found): files = found
            case .failure(let refusal):
                refuse(refusal)
                continue
            }
            for file in files {
                let plugin: Plugin
                do {
                    plugin = try load(file, reusable[file])
                } catch {
                    guard let kept = reusable[file] else {
                        refuse(error)
                        continue
                    }
                    refuse(
                        PluginRefusal(
                            file: error.file, code: error.code,
                            reason: error.reason + "; version \(kept.version) loaded before keeps serving"))
                    plugin = kept
                }
                if let refusal = builder.add(plugin) {
                    log(refusal, logger: logger)
                } else if plugin !== reusable[file] {
                    logger.info(
                        "loaded plugin",
                        metadata: [
                            "plugin": "\(plugin.name)", "version": "\(plugin.version)", "file": "\(file)",
                            "itemTypes": "\(plugin.itemTypes.joined(separator: ","))",
                            "headerTypes": "\(plugin.headerTypes.joined(separator: ","))",
                        ])
                }
            }
        }
        return builder.build()
    }

    /// Loads one plugin file (or returns `candidate` when it was loaded from this very file).
    public func loadPlugin(_ file: String, reusing candidate: LoadedPlugin? = nil) throws(PluginRefusal) -> LoadedPlugin
    {
        guard let identity = PluginFileIdentity.of(file) else {
            throw PluginRefusal(
                file: file,
                code: .fileUnreadable,
                reason:
                    "cannot read the plugin file: \(String(cString: strerror(errno))); check that it is a readable regular file"
            )
        }
        if let candidate, candidate.file == file, candidate.fileIdentity == identity {
            logger.debug(
                "plugin file unchanged, reusing it", metadata: ["plugin": "\(candidate.name)", "file": "\(file)"])
            return candidate
        }
        return try loadPlugin(from: try PluginImage.copy(of: file))
    }

    /// Loads the plugin in `image`, a private copy of its file.
    public func loadPlugin(from image: PluginImage) throws(PluginRefusal) -> LoadedPlugin {
        let file = image.file
        let library = try PluginLibrary.load(image)
        guard let symbol = library.entrySymbol(ROWCAST_PLUGIN_ENTRY_SYMBOL) else {
            throw PluginRefusal(
                file: file,
                code: .missingEntry,
                reason:
                    "the library does not export \(ROWCAST_PLUGIN_ENTRY_SYMBOL); a plugin must define it (in Swift: @_cdecl(\"\(ROWCAST_PLUGIN_ENTRY_SYMBOL)\"))"
            )
        }
        let entry = unsafeBitCast(symbol, to: rowcast_plugin_entry_fn.self)
        let info = try PluginDescriptorReader.read(UnsafeRawPointer(entry()), file: file)
        return LoadedPlugin(file: file, identity: image.identity, library: library, info: info)
    }

    /// The plugin files directly in `directory`, sorted by name; a directory that someone other
    /// than root or rowcastd's user can write to (who could put a plugin in it) is refused.
    static func pluginFiles(in directory: String) throws(PluginRefusal) -> [String] {
        guard let stream = opendir(directory) else {
            throw PluginRefusal(
                file: directory,
                code: .directoryUnreadable,
                reason:
                    "cannot read the plugin directory: \(String(cString: strerror(errno))); create it or remove it from the configuration"
            )
        }
        defer { closedir(stream) }
        if let problem = FileTrust.problem(descriptor: dirfd(stream), file: directory, what: "plugin directory") {
            throw PluginRefusal(file: directory, code: .directoryInsecure, reason: problem)
        }
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

    private static func log(_ refusal: PluginRefusal, logger: Logger) {
        let level: Logger.Level = refusal.code == .directoryUnreadable ? .warning : .error
        logger.log(
            level: level, "refused plugin: \(refusal)",
            metadata: ["file": "\(refusal.file)", "code": "\(refusal.code)"])
    }
}
