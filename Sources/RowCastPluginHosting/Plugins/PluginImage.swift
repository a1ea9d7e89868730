import CRowCastHost

import RowCastSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A private, sealed copy of a plugin file in an anonymous memory file: what `dlopen` loads,
/// in rowcastd (`in_process`) and in a plugin host alike.
///
/// Loading from a copy makes a loaded plugin immune to its file being overwritten in place
/// (`cp new.so librowcast-x.so`): the mapped pages belong to the copy, never to the file. It
/// also gives every load a new object, so glibc never hands back an earlier version.
///
/// Not `Sendable`: it owns a descriptor, closed with the image (a loaded library keeps its
/// image as long as it lives).
public final class PluginImage {
    /// The memory file's descriptor (close-on-exec).
    public let descriptor: Int32
    /// The identity of the plugin file the bytes were read from, when they were read.
    public let identity: PluginFileIdentity
    /// The plugin file.
    public let file: String

    /// The path `dlopen` takes for this image: `/proc/self/fd/N`, spelled with as many extra
    /// slashes as it takes to differ from every name already loaded. glibc matches `dlopen`
    /// paths by name first, and a descriptor number is reused once an earlier image (of a
    /// refused plugin, say) is closed.
    public private(set) lazy var loadPath: String = {
        var slashes = "/"
        while true {
            let path = "/proc/self/fd\(slashes)\(descriptor)"
            guard let loaded = dlopen(path, RTLD_LAZY | RTLD_NOLOAD) else { return path }
            dlclose(loaded)  // drops only the reference RTLD_NOLOAD just took
            slashes += "/"
        }
    }()

    private init(descriptor: Int32, identity: PluginFileIdentity, file: String) {
        self.descriptor = descriptor
        self.identity = identity
        self.file = file
    }

    deinit { close(descriptor) }

    /// The image rowcastd handed to a plugin host as `descriptor`, copied from `file`.
    public static func adopt(descriptor: Int32, file: String) throws(PluginRefusal) -> PluginImage {
        guard let identity = PluginFileIdentity.of(descriptor: descriptor) else {
            throw PluginRefusal(
                file: file, code: .hostFailed,
                reason: "the plugin host got no readable plugin image: \(String(cString: strerror(errno)))")
        }
        return PluginImage(descriptor: descriptor, identity: identity, file: file)
    }

    /// Copies `file` into a new sealed memory file. A file that changes while it is read (a
    /// copy still being written) is refused: reload once it is complete. So is a file that
    /// someone other than root or rowcastd's user could have written (``FileTrust``).
    public static func copy(of file: String) throws(PluginRefusal) -> PluginImage {
        func refusal(_ what: String, code: PluginRefusal.Code = .fileUnreadable) -> PluginRefusal {
            PluginRefusal(file: file, code: code, reason: "cannot \(what): \(String(cString: strerror(errno)))")
        }
        let source = open(file, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw refusal("open the plugin file; check that it is a readable regular file") }
        defer { close(source) }
        guard let before = PluginFileIdentity.of(descriptor: source) else {
            throw refusal("read the plugin file; check that it is a regular file")
        }
        if let problem = FileTrust.problem(descriptor: source, file: file, what: "plugin file") {
            throw PluginRefusal(file: file, code: .fileInsecure, reason: problem)
        }
        let name = file.split(separator: "/").last.map(String.init) ?? "plugin"
        let image = rowcast_memfd_create("rowcast:\(name)")
        guard image >= 0 else { throw refusal("create a memory file for a private copy") }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                let error = refusal("read the plugin file")
                close(image)
                throw error
            }
            var written = 0
            while written < count {
                let result = buffer.withUnsafeBytes { write(image, $0.baseAddress! + written, count - written) }
                if result < 0 {
                    if errno == EINTR { continue }
                    let error = refusal("copy the plugin into memory")
                    close(image)
                    throw error
                }
                written += result
            }
        }
        guard let after = PluginFileIdentity.of(descriptor: source), after == before,
            let copied = PluginFileIdentity.of(descriptor: image), copied.size == before.size
        else {
            close(image)
            throw PluginRefusal(
                file: file, code: .fileChanging,
                reason:
                    "the file changed while it was being read (a copy still being written?); reload again once it is complete, or install plugins with cp to a temporary name and mv"
            )
        }
        _ = rowcast_memfd_seal(image)
        return PluginImage(descriptor: image, identity: before, file: file)
    }
}

@available(*, unavailable)
extension PluginImage: Sendable {}
