/// Why a plugin file (or a plugin directory) was not loaded: a value to log, report in a
/// `plugins` status request and act on. Loading continues with the other files.
public struct PluginRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// A machine-readable refusal code; new codes can be added without breaking callers.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code as it appears in JSON, e.g. `abi_mismatch`.
        public let rawValue: String

        /// A code from its JSON spelling.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A configured plugin directory does not exist or cannot be read.
        public static let directoryUnreadable = Code(rawValue: "directory_unreadable")
        /// A configured plugin directory is writable by group or others, or owned by a user
        /// other than root or rowcastd's user: someone else could put a plugin in it.
        public static let directoryInsecure = Code(rawValue: "directory_insecure")
        /// The file cannot be read or copied.
        public static let fileUnreadable = Code(rawValue: "file_unreadable")
        /// The file is writable by group or others, or owned by a user other than root or
        /// rowcastd's user: someone else could put code in it.
        public static let fileInsecure = Code(rawValue: "file_insecure")
        /// The file changed while it was being copied for loading.
        public static let fileChanging = Code(rawValue: "file_changing")
        /// A plugin host could not be started, or did not answer its handshake.
        public static let hostFailed = Code(rawValue: "host_failed")
        /// `dlopen` failed (not a shared library, a missing dependency, ...).
        public static let openFailed = Code(rawValue: "open_failed")
        /// The library does not export `rowcast_plugin_entry`.
        public static let missingEntry = Code(rawValue: "missing_entry")
        /// The plugin speaks another ABI version.
        public static let abiMismatch = Code(rawValue: "abi_mismatch")
        /// The descriptor is incomplete or malformed.
        public static let invalidDescriptor = Code(rawValue: "invalid_descriptor")
        /// An item or section type is already claimed by another plugin.
        public static let duplicateType = Code(rawValue: "duplicate_type")
        /// Another plugin with the same name is already loaded.
        public static let duplicateName = Code(rawValue: "duplicate_name")

        /// The JSON spelling.
        public var description: String { rawValue }
    }

    /// The plugin file (or directory) that was refused.
    public let file: String
    /// What kind of refusal this is.
    public let code: Code
    /// Why, in one line, naming the plugins and types involved and what to do.
    public let reason: String

    /// A refusal of `file` for `reason`.
    public init(file: String, code: Code, reason: String) {
        self.file = file
        self.code = code
        self.reason = reason
    }

    /// `<file>: <reason>`.
    public var description: String { "\(file): \(reason)" }
}
