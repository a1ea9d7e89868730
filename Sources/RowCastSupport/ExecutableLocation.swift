#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where the running executable is, so rowcastd and rowcast find what is installed beside
/// them (plugins, `rowcast-plugin-host`, the plugin SDK).
public enum ExecutableLocation {
    /// The directory of this executable (from `/proc/self/exe`), or nil when it cannot be read.
    public static func directory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    }

    /// `name` in this executable's directory, when it is there and executable.
    public static func sibling(_ name: String) -> String? {
        guard let directory = directory() else { return nil }
        let path = directory + "/" + name
        return access(path, X_OK) == 0 ? path : nil
    }
}
