#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether this process runs with a sanitizer (`make test-asan`, `make test-tsan`, `make fuzz`).
/// Sanitizers reserve terabytes of address space for their shadow memory, so a plugin host
/// built with one cannot limit its address space: the memory limit is not enforced there, and
/// tests that need it are skipped.
public enum SanitizerRuntime {
    /// The sanitizer linked into this process, if any (`address`, `thread`, `memory`).
    public static let name: String? = {
        let runtimes = [("__asan_init", "address"), ("__tsan_init", "thread"), ("__msan_init", "memory")]
        return runtimes.first { dlsym(nil, $0.0) != nil }?.1
    }()

    /// Whether a sanitizer is linked into this process.
    public static var isActive: Bool { name != nil }
}
