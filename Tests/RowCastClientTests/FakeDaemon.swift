import Foundation
import RowCastClient
import RowCastJSON
import ZeroMQ

/// A stand-in for rowcastd on free loopback ports: a ROUTER answering requests through a
/// handler, a PUB the test publishes on, and a PULL recording what it receives.
///
/// Its sockets live on its own thread. `@unchecked Sendable`: every mutable member is read and
/// written under `lock`.
final class FakeDaemon: @unchecked Sendable {
    /// What the daemon does with one control request.
    struct Response {
        /// Published before the reply, in order: (topic without NUL, body).
        var publishFirst: [(String, JSONValue)] = []
        /// The replies sent, in order (none: stay silent).
        var replies: [JSONValue] = []
    }

    /// Called on the daemon's thread, under its lock: it must not call the daemon.
    typealias Handler = @Sendable (JSONValue) -> Response

    private let lock = NSLock()
    private let ready = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private var stopping = false
    private var outgoing: [(String, JSONValue)] = []
    private var heartbeating = false
    private var endpoints: (control: String, publish: String, ingest: String)?
    private var startError: String?
    private var requestLog: [JSONValue] = []
    private var ingestLog: [JSONValue] = []
    private var handler: Handler

    /// Starts the daemon; throws when its sockets cannot be bound.
    init(handler: @escaping Handler = { _ in Response() }) throws {
        self.handler = handler
        let thread = Thread { [self] in run() }
        thread.start()
        guard ready.wait(timeout: .now() + 10) == .success else {
            throw FakeDaemonError("the fake daemon did not start")
        }
        if let startError = locked({ self.startError }) { throw FakeDaemonError(startError) }
    }

    var control: String { locked { endpoints!.control } }
    var publish: String { locked { endpoints!.publish } }
    var ingest: String { locked { endpoints!.ingest } }
    /// The control requests received so far.
    var requests: [JSONValue] { locked { requestLog } }
    /// The ingest messages received so far.
    var ingested: [JSONValue] { locked { ingestLog } }

    /// Replaces the request handler.
    func setHandler(_ handler: @escaping Handler) { locked { self.handler = handler } }

    /// Publishes `body` on `topic` (NUL added) from the daemon's thread.
    func publish(_ topic: String, _ body: JSONValue) { locked { outgoing.append((topic, body)) } }

    /// Publishes `{"event":"heartbeat"}` on every loop turn while on (to find out when a
    /// subscription has reached the daemon).
    func setHeartbeating(_ on: Bool) { locked { heartbeating = on } }

    /// Stops the thread and closes the sockets.
    func stop() {
        locked { stopping = true }
        _ = finished.wait(timeout: .now() + 10)
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    private func run() {
        defer { finished.signal() }
        do {
            try loop()
        } catch {
            locked { startError = "\(error)" }
            if locked({ endpoints == nil }) { ready.signal() }
        }
    }

    private func loop() throws {
        let context = try Context()
        let router = try Socket(context: context, type: .router)
        let pub = try Socket(context: context, type: .pub)
        let pull = try Socket(context: context, type: .pull)
        defer {
            router.close()
            pub.close()
            pull.close()
        }
        for socket in [router, pub, pull] {
            try socket.setOption(.linger, 0)
            try socket.bind("tcp://127.0.0.1:*")
        }
        let bound = (try router.lastEndpoint, try pub.lastEndpoint, try pull.lastEndpoint)
        locked { endpoints = bound }
        ready.signal()
        let poller = Poller()
        poller.register(router)
        poller.register(pull)
        func send(_ topic: String, _ body: JSONValue) throws {
            _ = try pub.send([Array(topic.utf8) + [0], body.serialized()], dontWait: true)
        }
        while !locked({ stopping }) {
            let (toPublish, beat) = locked { () -> ([(String, JSONValue)], Bool) in
                defer { outgoing.removeAll() }
                return (outgoing, heartbeating)
            }
            for (topic, body) in toPublish { try send(topic, body) }
            if beat { try send("heartbeat", ["event": "heartbeat", "time": 0, "uptime": 0]) }
            _ = try poller.poll(timeoutMilliseconds: 5)
            while let frames = try router.receiveMultipart(dontWait: true) {
                let request = (try? JSONParser.parse(frames.last ?? [])) ?? .null
                let response = locked { () -> Response in
                    requestLog.append(request)
                    return handler(request)
                }
                for (topic, body) in response.publishFirst { try send(topic, body) }
                for reply in response.replies {
                    _ = try router.send([frames[0], [], reply.serialized()], dontWait: true)
                }
            }
            while let frames = try pull.receiveMultipart(dontWait: true) {
                let body = (try? JSONParser.parse(frames.last ?? [])) ?? .null
                locked { ingestLog.append(body) }
            }
        }
    }
}

struct FakeDaemonError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `{"ok":true, "op", "req"}` plus `members`, echoing the request's `req` as the daemon does.
func okReply(to request: JSONValue, _ members: JSONObject = [:]) -> JSONValue {
    var object: JSONObject = ["ok": true, "op": request["op"] ?? "?"]
    for entry in members.entries { object[entry.key] = entry.value }
    if let req = request["req"] { object["req"] = req }
    return .object(object)
}

/// A value shared between a test and a fake daemon's handler. `@unchecked Sendable`: `value`
/// is only touched under `lock`.
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); defer { lock.unlock() }; stored = newValue }
    }
}

/// Polls `condition` until it holds, for at most 10 seconds; false if it never did.
func eventually(_ condition: () -> Bool) -> Bool {
    let end = ContinuousClock.now.advanced(by: .seconds(10))
    while ContinuousClock.now < end {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return condition()
}
