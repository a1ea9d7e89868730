/// The plugin files of the plugin directories, as one scan found them: each directory in the
/// order given (a directory listed twice is scanned once), with its plugin files in byte order
/// of their names, or why it was refused (``PluginLoader/pluginFiles(in:)``). Loading from a
/// scan opens exactly these files: several engine loops that reload from one scan load the
/// same list, whatever appears in the directories meanwhile.
public struct PluginScan: Sendable, Equatable {
    /// One directory scanned.
    public struct Directory: Sendable, Equatable {
        /// The directory as configured.
        public let path: String
        /// Its plugin files, or why it was refused.
        public let files: Result<[String], PluginRefusal>
    }

    /// The directories, in the order scanned.
    public let directories: [Directory]

    /// Scans `directories` now.
    public init(directories: [String]) {
        var seen = Set<String>()
        var scanned: [Directory] = []
        for directory in directories where seen.insert(directory).inserted {
            scanned.append(
                Directory(
                    path: directory,
                    files: Result { () throws(PluginRefusal) in
                        try PluginLoader.pluginFiles(in: directory)
                    }))
        }
        self.directories = scanned
    }

    /// Every plugin file found, in the order they load.
    public var files: [String] {
        directories.flatMap { (try? $0.files.get()) ?? [] }
    }
}
