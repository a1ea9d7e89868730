#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a `pthread_mutex_t` (the descriptor cache of ``RowCastPluginExport``). The
/// standard library's `Mutex` waits on futexes directly on Linux, which ThreadSanitizer cannot
/// see, so every access under it is reported as a race; a pthread mutex is intercepted and
/// understood (`make test-tsan`).
///
/// Internal: plugin authors do not need it. rowcastd has its own copy in `RowCastSupport`,
/// because `package` access does not cross from this package to the one that uses it.
final class LockedValue<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A lock holding `value`.
    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, the lock held.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
