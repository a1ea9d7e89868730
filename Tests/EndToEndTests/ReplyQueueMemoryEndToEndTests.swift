import Foundation
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import Testing
import ZeroMQ

/// Issue 13, failure 4: replies queued for a client that does not read are bounded
/// (`limits.client_reply_queue` per client, docs/OPERATIONS.md "Memory"), what is dropped is
/// counted in `status`, and rowcastd's memory stays under the documented bound.
@Suite(.serialized)
struct ReplyQueueMemoryEndToEndTests {
    /// rowcastd's resident set in bytes, from /proc/<pid>/status.
    func residentBytes(_ pid: Int32) throws -> Int {
        let text = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else {
            throw TestFailure("no VmRSS in /proc/\(pid)/status")
        }
        return kilobytes * 1024
    }

    @Test(
        "20,000 pipelined snapshot requests left unread: replies over the client's queue are dropped and counted, RSS stays under the bound"
    )
    func unreadSnapshots() throws {
        let daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        let items: [JSONValue] = (0..<100).map { index in
            [
                "id": .string("i\(index)"), "type": "product",
                "data": [
                    "name": .string(String(repeating: "n", count: 150) + "\(index)"), "operatedBy": "T", "price": 1,
                    "image": "i",
                ],
            ]
        }
        #expect(try peer.request(["op": "reset", "feed": "mem", "items": .array(items)])["ok"] == true)
        let snapshotBytes = try peer.requestText(#"{"op":"snapshot","feed":"mem"}"#).utf8.count
        let startStatus = try peer.request(["op": "status"])
        let received = Int(startStatus["counters"]?["received"]?.numberValue ?? 0)
        let baseline = try residentBytes(daemon.process.processIdentifier)

        // A client that pipelines 20,000 snapshot requests and never reads a reply.
        let hog = try Socket(context: peer.context, type: .dealer)
        defer { hog.close() }
        try hog.setOption(.linger, 0)
        try hog.setOption(.sendTimeout, 5000)
        try hog.connect(daemon.control)
        let request = Array(#"{"op":"snapshot","feed":"mem"}"#.utf8)
        let count = 20_000
        for index in 0..<count {
            guard try hog.send([[], request]) else {
                throw TestFailure("request \(index) could not be sent within 5 s")
            }
        }
        // Bounded wait until rowcastd has read and answered them all.
        var status = startStatus
        let deadline = Date().addingTimeInterval(120)
        while Int(status["counters"]?["received"]?.numberValue ?? 0) < received + 1 + count {
            guard Date() < deadline else {
                throw TestFailure("rowcastd did not read the \(count) requests within 120 s: \(status)")
            }
            Thread.sleep(forTimeInterval: 0.05)
            status = try peer.request(["op": "status"])
        }
        let grown = try residentBytes(daemon.process.processIdentifier) - baseline
        let dropped = Int(status["counters"]?["dropped"]?.numberValue ?? 0)
        // At most client_reply_queue (1000) replies wait in rowcastd (the rest of what was not
        // dropped sits in the kernel's socket buffers, outside its RSS).
        #expect(dropped > 0)
        #expect(dropped <= count - 1000, "\(dropped) dropped")
        let bound = 1000 * snapshotBytes + 64 << 20
        print(
            "rowcastd RSS grew by \(grown / 1024) KiB over \(count) unread snapshot replies of \(snapshotBytes) bytes; \(dropped) dropped; bound \(bound / 1024) KiB"
        )
        // A sanitizer keeps freed memory in quarantine and pads every allocation: the bound is
        // for the real build, and a sanitized run checks the drops only.
        if !SanitizerRuntime.isActive {
            #expect(
                grown < bound,
                "RSS grew by \(grown) bytes; the bound is \(bound) (1000 replies of \(snapshotBytes) bytes + 64 MiB)")
        }
        // The daemon keeps serving everyone else.
        #expect(try peer.request(["op": "snapshot", "feed": "mem"])["seq"] == 1)
        daemon.stop()
    }
}
