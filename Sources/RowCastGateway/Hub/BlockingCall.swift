import Foundation
import RowCastClient

/// Runs a blocking client call (a ZeroMQ request and its wait) on a thread of its own, so it
/// never blocks Swift's cooperative pool, and awaits its result.
enum BlockingCall {
    /// The result of `body`, run on a new thread named `name`.
    static func run<Value: Sendable>(
        _ name: String, _ body: @escaping @Sendable () throws(RowCastClientError) -> Value
    ) async throws(RowCastClientError) -> Value {
        let result: Result<Value, RowCastClientError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                do throws(RowCastClientError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.name = name
            thread.start()
        }
        return try result.get()
    }
}
