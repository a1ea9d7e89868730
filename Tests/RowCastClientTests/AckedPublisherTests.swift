import Foundation
import RowCastClient
import RowCastJSON
import Testing

/// Counts how often each req number reached the fake daemon.
final class AttemptCounter: @unchecked Sendable {  // every access holds `lock`
    private let lock = NSLock()
    private var counts: [Int: Int] = [:]

    func next(_ number: Int) -> Int {
        lock.withLock {
            counts[number, default: 0] += 1
            return counts[number]!
        }
    }
}

struct AckedPublisherTests {
    static func ack(_ request: JSONValue) -> JSONValue {
        [
            "ok": true, "op": request["op"] ?? "upsert", "feed": "f", "seq": request["req"] ?? 0,
            "req": request["req"] ?? .null, "client": request["client"] ?? .null,
        ]
    }

    static func upserts(_ count: Int) -> [JSONValue] {
        (1...count).map { ["op": "upsert", "feed": "f", "item": ["id": .string("\($0)"), "type": "product"]] }
    }

    @Test("an unanswered request is sent again with every later one, in order, over a new connection")
    func retryInOrder() throws {
        let counter = AttemptCounter()
        let daemon = try FakeDaemon { request in
            let number = Int(request["req"]?.numberValue ?? 0)
            // The first copy of request 2 gets no answer, as if the daemon had crashed.
            if counter.next(number) == 1 && number == 2 { return FakeDaemon.Response() }
            return FakeDaemon.Response(replies: [AckedPublisherTests.ack(request)])
        }
        defer { daemon.stop() }
        let publisher = try AckedPublisher(
            endpoint: daemon.control,
            options: AckedPublisherOptions(window: 4, retryTimeout: .milliseconds(200), timeout: .seconds(10)))
        let results = publisher.publish(Self.upserts(6))
        #expect(results.count == 6)
        for (index, result) in results.enumerated() {
            #expect((try? result.get())?["req"] == .number(Double(index + 1)))
        }
        #expect(publisher.reconnects >= 2)
        let requests = daemon.requests
        #expect(requests.allSatisfy { $0["client"] == .string(publisher.clientID) })
        // Everything from the second copy of request 2 on is in increasing order.
        let numbers = requests.map { Int($0["req"]?.numberValue ?? 0) }
        let repeatStart = try #require(numbers.indices.filter { numbers[$0] == 2 }.dropFirst().first)
        let tail = Array(numbers[repeatStart...])
        #expect(tail == tail.sorted())
        #expect(tail.first == 2)
    }

    @Test("a request never answered fails with timeout, and the others still get their results")
    func giveUp() throws {
        let daemon = try FakeDaemon { request in
            request["req"] == 1
                ? FakeDaemon.Response() : FakeDaemon.Response(replies: [AckedPublisherTests.ack(request)])
        }
        defer { daemon.stop() }
        let publisher = try AckedPublisher(
            endpoint: daemon.control,
            options: AckedPublisherOptions(window: 2, retryTimeout: .milliseconds(100), timeout: .milliseconds(600)))
        let results = publisher.publish(Self.upserts(3))
        #expect(results.count == 3)
        if case .failure(let error) = results[0] {
            #expect(error.code == "timeout")
            #expect(error.message.contains("may or may not have been applied"))
        } else {
            Issue.record("request 1 should have timed out")
        }
        #expect((try? results[1].get()) != nil)
        #expect((try? results[2].get()) != nil)
    }

    @Test(
        "a daemon that never answers: the oldest times out, those in flight behind it too, the rest are not sent; results come out as they are known"
    )
    func silentDaemonGivesUpOnce() throws {
        let daemon = try FakeDaemon { _ in FakeDaemon.Response() }
        defer { daemon.stop() }
        let publisher = try AckedPublisher(
            endpoint: daemon.control,
            options: AckedPublisherOptions(window: 3, retryTimeout: .milliseconds(100), timeout: .milliseconds(500)))
        var streamed: [Int] = []
        let results = publisher.publish(Self.upserts(50)) { index, _ in streamed.append(index) }
        #expect(streamed == Array(0..<50))
        let codes = results.map { result -> String in
            if case .failure(let error) = result { return error.code }
            return "ok"
        }
        #expect(codes.prefix(3) == ["timeout", "timeout", "timeout"], "\(codes)")
        #expect(codes.dropFirst(3).allSatisfy { $0 == "not_sent" }, "\(codes)")
        #expect(daemon.requests.allSatisfy { ($0["req"]?.numberValue ?? 0) <= 3 })
    }

    @Test("a refusal is a result of its own; window and ids stay within bounds")
    func refusal() throws {
        let daemon = try FakeDaemon { request in
            let error: JSONValue = ["code": "not_found", "message": "no item"]
            return FakeDaemon.Response(replies: [
                [
                    "ok": false, "op": "delete", "error": error, "req": request["req"] ?? .null,
                    "client": request["client"] ?? .null,
                ]
            ])
        }
        defer { daemon.stop() }
        let publisher = try AckedPublisher(endpoint: daemon.control)
        let results = publisher.publish([["op": "delete", "feed": "f", "id": "x"], .string("not an object")])
        if case .failure(let error) = results[0] {
            #expect(error.code == "not_found")
        } else {
            Issue.record("expected not_found")
        }
        if case .failure(let error) = results[1] {
            #expect(error.code == "invalid_request")
        } else {
            Issue.record("expected invalid_request")
        }
        #expect(AckedPublisherOptions(window: 0).window == 1)
        #expect(AckedPublisherOptions(window: 100_000).window == AckedPublisherOptions.maximumWindow)
        #expect(AckedPublisher.randomClientID() != AckedPublisher.randomClientID())
    }
}
