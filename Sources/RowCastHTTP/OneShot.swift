import Synchronization

/// A value set once from any thread and awaited by one task: the HTTP server's "listening"
/// or "failed to start". Later `resolve` calls are ignored. `Sendable`: its state is behind a
/// `Mutex`.
final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Result<Value, HTTPEndpointStartError>, Never>)
        case resolved(Result<Value, HTTPEndpointStartError>)
        case taken
    }

    private let state = Mutex<State>(.empty)

    /// Sets the value (the first call only) and wakes the waiter.
    func resolve(_ result: Result<Value, HTTPEndpointStartError>) {
        let waiter: CheckedContinuation<Result<Value, HTTPEndpointStartError>, Never>? = state.withLock { state in
            switch state {
            case .empty:
                state = .resolved(result)
                return nil
            case .waiting(let continuation):
                state = .taken
                return continuation
            case .resolved, .taken:
                return nil
            }
        }
        waiter?.resume(returning: result)
    }

    /// Waits for the value; only one task may wait.
    var value: Result<Value, HTTPEndpointStartError> {
        get async {
            await withCheckedContinuation { continuation in
                let ready: Result<Value, HTTPEndpointStartError>? = state.withLock { state in
                    switch state {
                    case .resolved(let result):
                        state = .taken
                        return result
                    case .empty:
                        state = .waiting(continuation)
                        return nil
                    case .waiting, .taken:
                        preconditionFailure("OneShot awaited twice")
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
