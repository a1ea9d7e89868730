import ServiceLifecycle

/// An HTTP endpoint that is listening: where, and how to stop it.
public struct RunningHTTPEndpoint: Sendable {
    /// The address bound (`tcp://127.0.0.1:7780`, the port resolved when 0 was asked for, or
    /// `ipc:///path`).
    public let address: String
    private let group: ServiceGroup
    private let task: Task<Void, Never>

    /// How long open connections (a WebSocket, a slow client) may keep a stop waiting before
    /// they are cut.
    static let closeDeadline = Duration.seconds(2)

    init(address: String, group: ServiceGroup, task: Task<Void, Never>) {
        self.address = address
        self.group = group
        self.task = task
    }

    /// Stops accepting connections, lets the open ones finish (at most `closeDeadline`, then
    /// they are closed), and waits until the server has stopped.
    public func stop() async {
        await group.triggerGracefulShutdown()
        let task = self.task
        let deadline = Task {
            try? await Task.sleep(for: Self.closeDeadline)
            task.cancel()
        }
        await task.value
        deadline.cancel()
    }
}
