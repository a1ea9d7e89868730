import Testing
import ZeroMQ

@Suite("Terminating a context")
struct ContextTerminationTests {
    @Test("terminate() frees the endpoints its closed sockets bound, while the context is still referenced")
    func terminateFreesEndpoints() throws {
        let context = try Context()
        let socket = try openSocket(context, .pull)
        let endpoint = try bindReal(socket, "tcp://127.0.0.1:*")
        socket.close()
        context.terminate()
        // `context` and `socket` are both still alive here: only terminate() let go of the port.
        let other = try Context()
        let again = try openSocket(other, .pull)
        defer { again.close() }
        try again.bind(endpoint)
        withExtendedLifetime((context, socket)) {}
    }

    @Test("after terminate(): new sockets fail with ETERM, shutdown and terminate do nothing")
    func afterTerminate() throws {
        let context = try Context()
        context.terminate()
        let error = try #require(throws: ZeroMQError.self) { try Socket(context: context, type: .pull) }
        #expect(error.isTerminated)
        #expect(error.operation.hasPrefix("open "))
        context.shutdown()
        context.terminate()
    }
}
