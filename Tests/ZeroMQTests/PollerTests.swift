import Testing
import ZeroMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Poller")
struct PollerTests {
    @Test("readable only while a message is waiting", arguments: transports)
    func readableWhenWaiting(endpoint: String) throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        let push = try openSocket(context, .push)
        defer { push.close(); pull.close() }
        try push.connect(try bindReal(pull, endpoint))
        let poller = Poller()
        poller.register(pull)

        #expect(try poller.poll(timeoutMilliseconds: 20) == 0)
        #expect(poller.isReadable(pull) == false)

        #expect(try push.send(bytes("wake")))
        #expect(try poller.poll(timeoutMilliseconds: 5_000) == 1)
        #expect(poller.isReadable(pull))
        #expect(try pull.events.contains(.readable))
        #expect(try pull.receive(dontWait: true) == bytes("wake"))

        #expect(try poller.poll(timeoutMilliseconds: 0) == 0)
        #expect(poller.isReadable(pull) == false)
        #expect(try pull.events.contains(.readable) == false)
    }

    @Test("of three sockets only the one with a message is readable, poll after poll")
    func threeSockets() throws {
        let context = try Context()
        let pulls = try (0..<3).map { _ in try openSocket(context, .pull) }
        let pushes = try (0..<3).map { _ in try openSocket(context, .push) }
        defer { (pushes + pulls).forEach { $0.close() } }
        let poller = Poller()
        for index in 0..<3 {
            try pushes[index].connect(try bindReal(pulls[index], "inproc://poll-\(index)"))
            poller.register(pulls[index])
        }
        #expect(poller.count == 3)

        for round in 0..<6 {
            let target = round % 3
            #expect(try pushes[target].send(bytes("to \(target)")))
            #expect(try poller.poll(timeoutMilliseconds: 5_000) == 1)
            #expect(pulls.map { poller.isReadable($0) } == (0..<3).map { $0 == target })
            #expect(try pulls[target].receive(dontWait: true) == bytes("to \(target)"))
        }
    }

    @Test("writable once a PUSH socket has a peer")
    func writable() throws {
        let context = try Context()
        let push = try openSocket(context, .push)
        defer { push.close() }
        try push.bind("inproc://writable")
        let poller = Poller()
        poller.register(push, for: .writable)

        #expect(try poller.poll(timeoutMilliseconds: 0) == 0)
        #expect(poller.events(of: push).isEmpty)

        let pull = try openSocket(context, .pull)
        defer { pull.close() }
        try pull.connect("inproc://writable")
        #expect(try poller.poll(timeoutMilliseconds: 5_000) == 1)
        #expect(poller.isWritable(push))
        #expect(poller.isReadable(push) == false)
    }

    @Test("registering again replaces the events; unregister removes the socket")
    func registerReplacesAndUnregister() throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        let push = try openSocket(context, .push)
        defer { push.close(); pull.close() }
        try push.connect(try bindReal(pull, "inproc://reregister"))
        #expect(try push.send(bytes("x")))

        let poller = Poller()
        poller.register(pull, for: .writable)  // a PULL socket is never writable
        poller.register(pull, for: .readable)
        #expect(poller.count == 1)
        #expect(try poller.poll(timeoutMilliseconds: 5_000) == 1)
        #expect(poller.isReadable(pull))

        poller.unregister(pull)
        #expect(poller.count == 0)
        #expect(poller.isReadable(pull) == false)
        #expect(try poller.poll(timeoutMilliseconds: 0) == 0)
    }

    @Test("a closed registered socket makes poll throw instead of touching freed memory")
    func closedSocket() throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        let poller = Poller()
        poller.register(pull)
        pull.close()

        let error = try #require(throws: ZeroMQError.self) { try poller.poll(timeoutMilliseconds: 0) }
        #expect(error.errno == ENOTSOCK)
        #expect(error.description.contains("socket is closed"))
        poller.unregister(pull)
        #expect(try poller.poll(timeoutMilliseconds: 0) == 0)
    }

    @Test("poll after Context.shutdown throws ETERM")
    func shutdown() throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        defer { pull.close() }
        let poller = Poller()
        poller.register(pull)
        context.shutdown()

        let error = try #require(throws: ZeroMQError.self) { try poller.poll(timeoutMilliseconds: 5_000) }
        #expect(error.isTerminated)
    }

    @Test("a plain file descriptor (a pipe) is polled together with a socket")
    func fileDescriptorBesideSocket() throws {
        let context = try Context()
        let pull = try openSocket(context, .pull)
        let push = try openSocket(context, .push)
        defer { push.close(); pull.close() }
        try push.connect(try bindReal(pull, "inproc://poll-fd"))
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let poller = Poller()
        poller.register(pull)
        poller.register(fileDescriptor: ends[0])
        #expect(poller.count == 2)

        #expect(try poller.poll(timeoutMilliseconds: 20) == 0)
        #expect(poller.events(ofFileDescriptor: ends[0]).isEmpty)

        #expect(write(ends[1], "x", 1) == 1)
        #expect(try poller.poll(timeoutMilliseconds: 5_000) == 1)
        #expect(poller.events(ofFileDescriptor: ends[0]).contains(.readable))
        #expect(poller.isReadable(pull) == false)

        #expect(try push.send(bytes("wake")))
        #expect(try poller.poll(timeoutMilliseconds: 5_000) == 2)
        #expect(poller.isReadable(pull))
        var byte: UInt8 = 0
        #expect(read(ends[0], &byte, 1) == 1)
        #expect(try poller.poll(timeoutMilliseconds: 5_000) == 1)
        #expect(poller.events(ofFileDescriptor: ends[0]).isEmpty)
        #expect(poller.events(ofFileDescriptor: 12345).isEmpty)

        // The writer went away: a hang-up, which the reader sees as the end of the input.
        _ = try pull.receive(dontWait: true)
        close(ends[1])
        #expect(try poller.poll(timeoutMilliseconds: 5_000) == 1)
        #expect(poller.events(ofFileDescriptor: ends[0]).contains(.error))
        #expect(read(ends[0], &byte, 1) == 0)
    }
}
