import Foundation
import RowCastDaemon
import RowCastJSON
import Testing

/// The systemd notification protocol against a fake `NOTIFY_SOCKET` the test owns: the
/// notifier itself, then a real rowcastd (READY, WATCHDOG, RELOADING, STOPPING).
@Suite(.serialized)
struct NotifyTests {
    @Test("the notifier sends one datagram per message to a path or an abstract socket", arguments: [false, true])
    func notifierDelivers(abstract: Bool) throws {
        let socket = try FakeNotifySocket(abstract: abstract)
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.name])
        #expect(notifier.isEnabled)
        #expect(notifier.send(NotifyMessage.ready.adding(.status("1 feed,\n2 rows"))))
        #expect(socket.receive(timeout: 5) == "READY=1\nSTATUS=1 feed, 2 rows")
        #expect(notifier.send(.watchdog))
        #expect(socket.receive(timeout: 5) == "WATCHDOG=1")
    }

    @Test("without NOTIFY_SOCKET the notifier does nothing; a name it cannot use is an error")
    func notifierDisabledOrRefused() throws {
        let disabled = try SystemdNotifier(environment: [:])
        #expect(!disabled.isEnabled)
        #expect(disabled.send(.ready))
        #expect(throws: NotifySocketError.self) {
            try SystemdNotifier(environment: ["NOTIFY_SOCKET": "relative/socket"])
        }
        #expect(throws: NotifySocketError.self) {
            try SystemdNotifier(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)])
        }
    }

    @Test("READY=1 comes first, and only once every socket accepts connections")
    func readyAfterSocketsAcceptConnections() throws {
        let socket = try FakeNotifySocket()
        let ports = try (0..<3).map { _ in try LoopbackPort.free() }
        let daemon = try DaemonProcess(
            extraArguments: [
                "--ingest", "tcp://127.0.0.1:\(ports[0])", "--control", "tcp://127.0.0.1:\(ports[1])", "--publish",
                "tcp://127.0.0.1:\(ports[2])",
            ],
            environment: ["NOTIFY_SOCKET": socket.name],
            waitForReady: false
        )
        let ready = try socket.waitFor("READY=1")
        for port in ports { #expect(LoopbackPort.accepts(port), "port \(port) refused a connection after READY=1") }
        // Before READY=1 only the load's progress (EXTEND_TIMEOUT_USEC=, STATUS=loading ...).
        let received = socket.received
        let before = received.prefix { $0 != ready }
        #expect(before.count < received.count, "\(received)")
        #expect(
            before.allSatisfy { $0.contains("EXTEND_TIMEOUT_USEC=") && !$0.contains("READY=1") }, "\(received)")
        #expect(ready.contains("MAINPID=\(daemon.process.processIdentifier)"))
        #expect(ready.contains("STATUS=0 feeds, 0 rows, 0 items/s, 2 plugins"))
        try daemon.waitForReadyLine()
        #expect(daemon.control == "tcp://127.0.0.1:\(ports[1])")
    }

    @Test(
        "while the state loads, before READY=1: EXTEND_TIMEOUT_USEC=, STATUS=loading ... and WATCHDOG=1 when one is asked for"
    )
    func progressWhileLoading() throws {
        let socket = try FakeNotifySocket()
        let daemon = try DaemonProcess(
            environment: ["NOTIFY_SOCKET": socket.name, "WATCHDOG_USEC": "200000"], waitForReady: false)
        try socket.waitFor("READY=1")
        try daemon.waitForReadyLine()
        let first = try #require(socket.received.first)
        #expect(first.contains("EXTEND_TIMEOUT_USEC=30000000"), "\(socket.received)")
        #expect(first.contains("STATUS=loading the state"), "\(socket.received)")
        #expect(first.contains("WATCHDOG=1"), "\(socket.received)")
        #expect(!first.contains("READY=1"), "\(socket.received)")
    }

    @Test("WATCHDOG=1 keeps coming from the loop while it works, and STATUS= follows the feeds")
    func watchdogWhileWorking() throws {
        let socket = try FakeNotifySocket()
        let daemon = try DaemonProcess(environment: ["NOTIFY_SOCKET": socket.name, "WATCHDOG_USEC": "200000"])
        try socket.waitFor("READY=1")
        let peer = try RawPeer(daemon)
        var pings = 0
        for index in 0..<5 {
            let ack = try peer.request([
                "op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("\(index)"),
            ])
            #expect(ack["ok"] == true)
            try socket.waitFor("WATCHDOG=1")
            pings += 1
        }
        #expect(pings == 5)
        let status = try socket.waitFor("STATUS=1 feed, 5 rows, 0 items/s, 2 plugins", timeout: 30)
        #expect(!status.contains("READY=1"))
    }

    @Test("no WATCHDOG=1 when WATCHDOG_PID names another process")
    func watchdogForAnotherProcess() throws {
        let socket = try FakeNotifySocket()
        let daemon = try DaemonProcess(environment: [
            "NOTIFY_SOCKET": socket.name, "WATCHDOG_USEC": "20000", "WATCHDOG_PID": "1",
        ])
        try socket.waitFor("READY=1")
        // Heartbeats (every 200 ms) prove the loop ran many passes meanwhile.
        let peer = try RawPeer(daemon)
        try peer.subscriber.subscribe(Array("heartbeat".utf8))
        for _ in 0..<3 { _ = try peer.receive { topic, _ in topic == "heartbeat" } }
        while socket.receive(timeout: 0.05) != nil {}
        #expect(!socket.received.contains { $0.contains("WATCHDOG=1") })
    }

    @Test("SIGHUP: RELOADING=1 then READY=1; SIGTERM: STOPPING=1 and exit 0")
    func reloadAndStop() throws {
        let socket = try FakeNotifySocket()
        let daemon = try DaemonProcess(environment: ["NOTIFY_SOCKET": socket.name])
        try socket.waitFor("READY=1")
        daemon.signal(SIGHUP)
        let reloading = try socket.waitFor("RELOADING=1")
        #expect(reloading.contains("MONOTONIC_USEC="))
        try socket.waitFor("READY=1")
        daemon.signal(SIGTERM)
        try socket.waitFor("STOPPING=1")
        #expect(daemon.waitForExit(timeout: 20) == 0)
    }

    @Test("a daemon that cannot start never says READY=1")
    func noReadyOnFailedStart() throws {
        let first = try DaemonProcess()
        let socket = try FakeNotifySocket()
        let second = try DaemonProcess(
            extraArguments: ["--ingest", first.ingest], environment: ["NOTIFY_SOCKET": socket.name], waitForReady: false
        )
        #expect(second.waitForExit(timeout: 20) == 1)
        while socket.receive(timeout: 0.05) != nil {}
        #expect(!socket.received.contains { $0.contains("READY=1") })
        #expect(second.log.contains("in use"))
    }
}
