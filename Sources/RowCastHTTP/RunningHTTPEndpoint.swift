/// An HTTP endpoint that is listening: where, and how to stop it.
public struct RunningHTTPEndpoint: Sendable {
    /// The address bound (`tcp://127.0.0.1:7780`, the port resolved when 0 was asked for, or
    /// `ipc:///path`).
    public let address: String
    private let task: Task<Void, Never>

    init(address: String, task: Task<Void, Never>) {
        self.address = address
        self.task = task
    }

    /// Closes the listener and the open connections, and waits until the server has stopped.
    public func stop() async {
        task.cancel()
        await task.value
    }
}
