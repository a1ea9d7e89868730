#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// File modes in messages.
public enum FileMode {
    /// A mode as four octal digits, e.g. 0660.
    public static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
