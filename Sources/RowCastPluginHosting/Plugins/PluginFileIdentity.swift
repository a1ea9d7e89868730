#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What tells one version of a plugin file from another: device, inode, size and modification
/// time. A reload reuses a loaded plugin only when its file's identity is unchanged.
public struct PluginFileIdentity: Sendable, Hashable {
    /// The device holding the file.
    public let device: UInt64
    /// The file's inode number.
    public let inode: UInt64
    /// The file size in bytes.
    public let size: Int64
    /// The modification time, whole seconds since the epoch.
    public let modifiedSeconds: Int64
    /// The modification time's nanoseconds.
    public let modifiedNanoseconds: Int64

    /// The identity of the file at `path` (symbolic links followed), or `nil` with `errno` set
    /// when it cannot be read or is not a regular file.
    static func of(_ path: String) -> PluginFileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return of(info)
    }

    /// The identity of the open file `descriptor`, or `nil` with `errno` set.
    static func of(descriptor: Int32) -> PluginFileIdentity? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return of(info)
    }

    private static func of(_ info: stat) -> PluginFileIdentity? {
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            errno = EINVAL
            return nil
        }
        return PluginFileIdentity(
            device: UInt64(info.st_dev),
            inode: UInt64(info.st_ino),
            size: Int64(info.st_size),
            modifiedSeconds: Int64(info.st_mtim.tv_sec),
            modifiedNanoseconds: Int64(info.st_mtim.tv_nsec)
        )
    }
}
