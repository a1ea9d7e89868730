import Foundation
import RowCastClient
import RowCastJSON
import Testing

/// Issue 13, failure 3: every message over the size limit is answered `too_large` (control)
/// or reported (ingest), whatever its size, up to the hard limit; above it RowCastClient and
/// the CLI refuse to send it with `too_large` instead of waiting for an answer that cannot come.
/// With `--max-message-bytes 1024` the hard limit is 64 × 1024 + 64 KiB = 131,072 bytes.
@Suite(.serialized)
struct OversizedMessageEndToEndTests {
    static let limit = 1024
    static let hardLimit = 64 * 1024 + 64 * 1024

    /// An upsert of exactly `size` bytes, `req` and `client` first.
    func upsert(size: Int, req: Int) -> String {
        let head =
            #"{"req":\#(req),"client":"big","op":"upsert","feed":"f","item":{"id":"x\#(req)","type":"product","data":{"operatedBy":"T","price":1,"image":"i","name":""#
        let tail = #""}}}"#
        return head + String(repeating: "a", count: size - head.utf8.count - tail.utf8.count) + tail
    }

    func startDaemon() throws -> DaemonProcess {
        try DaemonProcess(extraArguments: ["--max-message-bytes", "\(Self.limit)"])
    }

    @Test(
        "control: at the limit a request is applied; over it, at 1×+1, 4×, 4×+4097, 16× and 64×, the reply is too_large with the req"
    )
    func controlAnswersEverySize() throws {
        let daemon = try startDaemon()
        let peer = try RawPeer(daemon)
        let status = try peer.request(["op": "status"])
        #expect(status["limits"]?["max_message_bytes"] == .number(Double(Self.limit)))
        #expect(status["limits"]?["hard_message_bytes"] == .number(Double(Self.hardLimit)))

        let atLimit = try JSONParser.parse(try peer.requestText(upsert(size: Self.limit, req: 1)))
        #expect(atLimit["ok"] == true, "\(atLimit)")
        for (req, size) in [
            (2, Self.limit + 1), (3, 4 * Self.limit), (4, 4 * Self.limit + 4097), (5, 16 * Self.limit),
            (6, 64 * Self.limit),
        ] {
            let reply = try JSONParser.parse(try peer.requestText(upsert(size: size, req: req)))
            #expect(reply["ok"] == false)
            #expect(reply["error"]?["code"] == "too_large", "\(size) bytes: \(reply)")
            #expect(reply["error"]?["message"]?.stringValue?.contains("\(size) bytes") == true)
            #expect(reply["req"] == .number(Double(req)), "\(size) bytes: \(reply)")
            #expect(reply["client"] == "big")
        }
        // Nothing oversized was applied; the daemon is still serving.
        let snapshot = try peer.request(["op": "snapshot", "feed": "f"])
        #expect(snapshot["seq"] == 1)
        daemon.stop()
    }

    @Test(
        "ingest: over the limit at 1×+1, 4×, 4×+4097, 16× and 64× each message gets a too_large event with its req and client"
    )
    func ingestReportsEverySize() throws {
        let daemon = try startDaemon()
        let peer = try RawPeer(daemon)
        try peer.subscribe([Array("errors".utf8)])
        for (req, size) in [
            (2, Self.limit + 1), (3, 4 * Self.limit), (4, 4 * Self.limit + 4097), (5, 16 * Self.limit),
            (6, 64 * Self.limit),
        ] {
            try peer.pushRaw(Array(upsert(size: size, req: req).utf8))
            let (topic, event) = try peer.receive { _, body in body["code"] == "too_large" }
            #expect(topic == "errors.f")
            #expect(event["req"] == .number(Double(req)), "\(size) bytes: \(event)")
            #expect(event["client"] == "big")
            #expect(event["message"]?.stringValue?.contains("\(size) bytes") == true)
        }
        daemon.stop()
    }

    @Test("above the hard limit RowCastClient and the CLI refuse with too_large at once; the daemon keeps serving")
    func aboveHardLimit() throws {
        let daemon = try startDaemon()
        let size = 256 * Self.limit
        let name = String(repeating: "b", count: size)
        let item: JSONValue = [
            "id": "huge", "type": "product",
            "data": ["name": .string(name), "operatedBy": "T", "price": 1, "image": "i"],
        ]

        let client = try ControlClient(endpoint: daemon.control, timeout: .seconds(10), clientName: "c")
        let error = try #require(throws: RowCastClientError.self) { try client.upsert(feed: "f", item: item) }
        #expect(error.code == "too_large")
        #expect(error.message.contains("hard limit of \(Self.hardLimit) bytes"))
        // Between the limit and the hard limit the daemon answers: the same client gets its too_large reply.
        let medium = try #require(throws: RowCastClientError.self) {
            try client.upsert(
                feed: "f",
                item: [
                    "id": "m", "type": "product",
                    "data": ["name": .string(String(repeating: "m", count: 8 * Self.limit))],
                ])
        }
        #expect(medium.code == "too_large")
        #expect(medium.message.contains("limits.max_message_bytes"))
        client.close()

        let publisher = try AckedPublisher(endpoint: daemon.control)
        let results = publisher.publish([RowCastRequest.upsert(feed: "f", item: item)])
        publisher.close()
        guard case .failure(let acked)? = results.first else {
            Issue.record("the acked publisher sent it: \(results)")
            return
        }
        #expect(acked.code == "too_large")

        let line = item.description
        let run = try CommandRunner(
            ["publish", "--feed", "f", "--file", "-", "--control", daemon.control], input: line)
        #expect(run.wait(timeout: 60) != 0)
        #expect(run.stderr.contains("too_large"), "\(run.stderr)")
        let pushed = try CommandRunner(
            [
                "publish", "--feed", "f", "--file", "-", "--no-ack", "--ingest", daemon.ingest, "--control",
                daemon.control,
            ], input: line)
        #expect(pushed.wait(timeout: 60) != 0)
        #expect(pushed.stderr.contains("too_large"), "\(pushed.stderr)")

        // A raw peer that sends it anyway loses its connection (documented); the daemon serves on.
        let raw = try RawPeer(daemon)
        _ = try raw.dealer.send([[], Array(upsert(size: size, req: 9).utf8)])
        let status = try RawPeer(daemon).request(["op": "status"])
        #expect(status["ok"] == true)
        daemon.stop()
    }
}
