import Foundation

/// A value shared between test threads; every access holds the lock.
final class Locked<Value>: @unchecked Sendable {  // every access to `value` holds `lock`
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func update<Result>(_ body: (inout Value) -> Result) -> Result { lock.withLock { body(&value) } }
}
