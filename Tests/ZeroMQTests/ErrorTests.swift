import Testing
import ZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Errors and edge cases")
struct ErrorTests {
    @Test("binding a port in use names the endpoint and the errno text")
    func portInUse() throws {
        let context = try Context()
        let first = try openSocket(context, .pull)
        let second = try openSocket(context, .pull)
        defer { second.close(); first.close() }
        let endpoint = try bindReal(first, "tcp://127.0.0.1:*")

        let error = try #require(throws: ZeroMQError.self) { try second.bind(endpoint) }
        #expect(error.errno == EADDRINUSE)
        #expect(error.operation == "bind \(endpoint)")
        #expect(error.description == "bind \(endpoint): Address already in use")
        #expect(String(describing: error).contains(endpoint))
    }

    @Test(
        "binding an invalid endpoint names it and the errno text",
        arguments: [
            ("bogus://x", EPROTONOSUPPORT, "Protocol not supported"),
            ("tcp://127.0.0.1:notaport", EINVAL, "Invalid argument"),
            ("tcp://", EINVAL, "Invalid argument"),
        ]
    )
    func invalidEndpoint(endpoint: String, errno: Int32, message: String) throws {
        let context = try Context()
        let socket = try openSocket(context, .pull)
        defer { socket.close() }
        let error = try #require(throws: ZeroMQError.self) { try socket.bind(endpoint) }
        #expect(error.errno == errno)
        #expect(error.description == "bind \(endpoint): \(message)")
    }

    @Test("connect and unbind errors name the endpoint")
    func connectAndUnbindErrors() throws {
        let context = try Context()
        let socket = try openSocket(context, .push)
        defer { socket.close() }
        let connect = try #require(throws: ZeroMQError.self) { try socket.connect("tcp://no-port-given") }
        #expect(connect.description == "connect tcp://no-port-given: Invalid argument")
        let unbind = try #require(throws: ZeroMQError.self) { try socket.unbind("tcp://127.0.0.1:1") }
        #expect(unbind.errno == ENOENT)
        #expect(unbind.description.hasPrefix("unbind tcp://127.0.0.1:1: "))
    }

    @Test("dontWait on a PUSH socket without peers returns false instead of blocking")
    func sendWithoutPeers() throws {
        let context = try Context()
        let push = try openSocket(context, .push)
        defer { push.close() }
        try push.bind("inproc://nobody-listens")
        #expect(try push.send(bytes("x"), dontWait: true) == false)
        #expect(try push.send([bytes("a"), bytes("b")], dontWait: true) == false)
        #expect(try push.events.contains(.writable) == false)
    }

    @Test("a blocking send returns false when sendTimeout expires")
    func sendTimeout() throws {
        let context = try Context()
        let push = try openSocket(context, .push, timeoutMilliseconds: 10)
        defer { push.close() }
        try push.bind("tcp://127.0.0.1:*")
        #expect(try push.send(bytes("x")) == false)
    }

    @Test("receive returns nil when nothing is waiting, with dontWait or after receiveTimeout")
    func receiveNothing() throws {
        let context = try Context()
        let pull = try openSocket(context, .pull, timeoutMilliseconds: 10)
        defer { pull.close() }
        try pull.bind("inproc://silence")
        #expect(try pull.receive(dontWait: true) == nil)
        #expect(try pull.receiveMultipart(dontWait: true) == nil)
        #expect(try pull.receive() == nil)
        #expect(try pull.receiveMultipart() == nil)
    }

    @Test("a message without frames is refused")
    func emptyMessage() throws {
        let context = try Context()
        let push = try openSocket(context, .push)
        defer { push.close() }
        let error = try #require(throws: ZeroMQError.self) { try push.send([] as [[UInt8]]) }
        #expect(error.errno == EINVAL)
    }

    @Test("every operation after close throws 'socket is closed'; close is idempotent")
    func afterClose() throws {
        let context = try Context()
        let socket = try openSocket(context, .sub)
        socket.close()
        socket.close()
        #expect(socket.isClosed)

        let operations: [(String, () throws(ZeroMQError) -> Void)] = [
            ("bind inproc://closed", { () throws(ZeroMQError) in try socket.bind("inproc://closed") }),
            ("connect inproc://closed", { () throws(ZeroMQError) in try socket.connect("inproc://closed") }),
            ("unbind inproc://closed", { () throws(ZeroMQError) in try socket.unbind("inproc://closed") }),
            ("disconnect inproc://closed", { () throws(ZeroMQError) in try socket.disconnect("inproc://closed") }),
            ("send", { () throws(ZeroMQError) in _ = try socket.send(bytes("x")) }),
            ("send", { () throws(ZeroMQError) in _ = try socket.send([bytes("x")]) }),
            ("receive", { () throws(ZeroMQError) in _ = try socket.receive() }),
            ("receive", { () throws(ZeroMQError) in _ = try socket.receiveMultipart() }),
            ("setsockopt ZMQ_LINGER", { () throws(ZeroMQError) in try socket.setOption(.linger, 0) }),
            ("getsockopt ZMQ_MAXMSGSIZE", { () throws(ZeroMQError) in _ = try socket.getOption(.maxMessageSize) }),
            ("subscribe", { () throws(ZeroMQError) in try socket.subscribe("rows") }),
            ("getsockopt ZMQ_LAST_ENDPOINT", { () throws(ZeroMQError) in _ = try socket.lastEndpoint }),
            ("getsockopt ZMQ_RCVMORE", { () throws(ZeroMQError) in _ = try socket.hasMore }),
        ]
        for (operation, body) in operations {
            let error = #expect(throws: ZeroMQError.self, "\(operation)") { try body() }
            #expect(error?.errno == ENOTSOCK)
            #expect(error?.description == "\(operation): socket is closed")
        }
    }

    @Test("after Context.shutdown blocking calls fail with ETERM and no socket can be opened")
    func contextShutdown() throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        defer { pull.close() }
        context.shutdown()
        context.shutdown()

        let receive = try #require(throws: ZeroMQError.self) { try pull.receive() }
        #expect(receive.isTerminated)
        #expect(receive.description == "receive: Context was terminated")
        let open = try #require(throws: ZeroMQError.self) { try Socket(context: context, type: .push) }
        #expect(open.isTerminated)
        #expect(open.operation == "open PUSH socket")
    }

    @Test("error conveniences follow errno")
    func conveniences() {
        #expect(ZeroMQError(errno: EINTR, operation: "x").isInterrupted)
        #expect(ZeroMQError(errno: EAGAIN, operation: "x").isWouldBlock)
        #expect(ZeroMQError(errno: EAGAIN, operation: "x").isInterrupted == false)
        #expect(ZeroMQError(errno: EADDRINUSE, operation: "bind a").description == "bind a: Address already in use")
    }
}
