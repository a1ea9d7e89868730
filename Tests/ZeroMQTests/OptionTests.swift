import Testing
import ZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Socket options and types")
struct OptionTests {
    @Test("options read back what was set")
    func roundTrip() throws {
        let context = try Context()
        let socket = try Socket(context: context, type: .dealer)
        defer { socket.close() }
        #expect(try socket.getOption(.linger) == -1, "libzmq's default linger is infinite")

        try socket.setOption(.linger, 250)
        try socket.setOption(.sendHighWaterMark, 10)
        try socket.setOption(.receiveHighWaterMark, 20)
        try socket.setOption(.receiveTimeout, 30)
        try socket.setOption(.sendTimeout, 40)
        try socket.setOption(.maxMessageSize, 1 << 33)
        try socket.setOption(.immediate, true)
        try socket.setOption(.routingID, [0x72, 0, 0xff])

        #expect(try socket.getOption(.linger) == 250)
        #expect(try socket.getOption(.sendHighWaterMark) == 10)
        #expect(try socket.getOption(.receiveHighWaterMark) == 20)
        #expect(try socket.getOption(.receiveTimeout) == 30)
        #expect(try socket.getOption(.sendTimeout) == 40)
        #expect(try socket.getOption(.maxMessageSize) == 1 << 33)
        #expect(try socket.getOption(.immediate))
        #expect(try socket.getOption(.routingID) == [0x72, 0, 0xff])
    }

    @Test("values libzmq or C int cannot hold are refused with the option's name")
    func invalidValues() throws {
        let context = try Context()
        let socket = try Socket(context: context, type: .dealer)
        defer { socket.close() }

        let range = try #require(throws: ZeroMQError.self) { try socket.setOption(.linger, Int(Int32.max) + 1) }
        #expect(range.errno == EINVAL)
        #expect(range.description == "setsockopt ZMQ_LINGER 2147483648: value out of range")

        let empty = try #require(throws: ZeroMQError.self) { try socket.setOption(.routingID, []) }
        #expect(empty.description == "setsockopt ZMQ_ROUTING_ID: Invalid argument")

        let onDealer = try #require(throws: ZeroMQError.self) { try socket.subscribe("rows") }
        #expect(onDealer.description == "subscribe: Invalid argument")
    }

    @Test("routerMandatory is write-only")
    func writeOnly() throws {
        let context = try Context()
        let router = try Socket(context: context, type: .router)
        defer { router.close() }
        try router.setOption(.routerMandatory, true)
        let error = try #require(throws: ZeroMQError.self) { try router.getOption(.routerMandatory) }
        #expect(error.description == "getsockopt ZMQ_ROUTER_MANDATORY: option is write-only")
    }

    @Test(
        "each socket type opens the libzmq type it names",
        arguments: [
            (SocketType.pair, 0), (.pub, 1), (.sub, 2), (.req, 3), (.rep, 4),
            (.dealer, 5), (.router, 6), (.pull, 7), (.push, 8), (.xpub, 9), (.xsub, 10),
        ]
    )
    func socketTypes(type: SocketType, zmqType: Int) throws {
        let context = try Context()
        let socket = try Socket(context: context, type: type)
        defer { socket.close() }
        #expect(socket.type == type)
        #expect(try socket.getOption(SocketOption<Int>(code: 16, name: "ZMQ_TYPE")) == zmqType)
    }

    @Test("every socket type is covered by the mapping test")
    func allTypesCovered() {
        #expect(
            Set(SocketType.allCases.map(\.description)) == [
                "PAIR", "PUB", "SUB", "REQ", "REP", "DEALER", "ROUTER", "PULL", "PUSH", "XPUB", "XSUB",
            ])
    }

    @Test("zmqVersion reports the loaded libzmq 4.x")
    func version() {
        let version = zmqVersion()
        #expect(version.major == 4)
        #expect(version.minor >= 0 && version.patch >= 0)
    }
}
