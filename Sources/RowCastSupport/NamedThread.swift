import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts the daemon's own threads under names the system shows (`top -H`, `ps -L`,
/// `/proc/<pid>/task/*/comm`, `perf`). Foundation's `Thread.name` does not reach the OS thread
/// on Linux: every one of them used to show as "oot.default-qos".
public enum NamedThread {
    /// The longest name Linux keeps (16 bytes with the terminating NUL).
    public static let maximumNameLength = 15

    /// glibc's `pthread_setname_np`, which Swift's Glibc module leaves out (it is a GNU
    /// extension); looked up once.
    private static let setName: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
    }()

    /// Runs `body` on a new thread named `name` (at most `maximumNameLength` bytes).
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        precondition(
            name.utf8.count <= maximumNameLength, "thread name \"\(name)\" is longer than \(maximumNameLength) bytes")
        let thread = Thread {
            _ = setName?(pthread_self(), name)
            body()
        }
        thread.name = name
        thread.start()
    }
}
