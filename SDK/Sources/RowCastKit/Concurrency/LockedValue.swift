/// A value behind a ``PthreadMutex`` (the descriptor cache of ``RowCastPluginExport``). The
/// standard library's `Mutex` waits on futexes directly on Linux, which ThreadSanitizer cannot
/// see, so every access under it is reported as a race; a pthread mutex is intercepted and
/// understood (`make test-tsan`).
///
/// Internal: plugin authors do not need it. rowcastd has its own copy in `RowCastSupport`,
/// because `package` access does not cross from this package to the one that uses it.
final class LockedValue<Value>: @unchecked Sendable {
    private let mutex = PthreadMutex()
    private var value: Value

    /// A lock holding `value`.
    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, the lock held.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        mutex.lock()
        defer { mutex.unlock() }
        return try body(&value)
    }
}
