#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Names the current boot of the machine (Linux's `/proc/sys/kernel/random/boot_id`), so
/// that a start can tell a crash of the process (the operating system kept every write) from
/// a reboot after a crash of the machine (writes that were not synced may be gone).
enum BootIdentity {
    /// The boot id, or nil where the system does not say.
    static func current() -> String? {
        let descriptor = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self).trimmingSpaces
        return text.isEmpty ? nil : text
    }
}
