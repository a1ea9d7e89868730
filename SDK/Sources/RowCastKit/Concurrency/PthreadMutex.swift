#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A `pthread_mutex_t` of its own on the heap (a mutex must not move), for ``LockedValue`` and
/// for ``PluginRuntime``'s kept output buffer. The standard library's `Mutex` waits on futexes
/// directly on Linux, which ThreadSanitizer cannot see; a pthread mutex is intercepted and
/// understood (`make test-tsan`).
final class PthreadMutex: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// An unlocked mutex.
    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Waits for the mutex and takes it.
    func lock() { pthread_mutex_lock(mutex) }

    /// Takes the mutex if no thread holds it; false (without waiting) when one does.
    func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }

    /// Gives the mutex back (on the thread that took it).
    func unlock() { pthread_mutex_unlock(mutex) }
}
