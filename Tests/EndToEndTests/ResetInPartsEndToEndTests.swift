import Foundation
import RowCastClient
import RowCastJSON
import Testing

/// Resets bigger than one message, as a producer sends them: `rowcast publish --reset --file`
/// sends one in parts and gets one ack; a reset abandoned halfway changes nothing.
@Suite(.serialized)
struct ResetInPartsEndToEndTests {
    @Test(
        "rowcast publish --reset --file of 20,000 items (about 3 MB, three times the message limit) is sent in parts, acked once, and a late replica equals the snapshot"
    )
    func bigResetFromTheCommandLine() throws {
        let daemon = try DaemonProcess(plugins: ["librowcast-product.so"])
        let control = ["--control", daemon.control]
        _ = try RawPeer(daemon).request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("old")])
        let lines = (0..<20_000).map { index -> String in
            let item: JSONValue = [
                "id": .string("car-\(index)"), "type": "product", "section": .string("s\(index % 4)"),
                "data": [
                    "name": .string("Tesla Model \(index)"), "operatedBy": "Tesla Inc.",
                    "price": .number(Double(30_000 + index)),
                    "image": .string("https://img.example/cars/\(index % 997).png"),
                ],
            ]
            return item.description
        }
        let input = lines.joined(separator: "\n") + "\n"
        #expect(input.utf8.count > 3 * 1_048_576 * 9 / 10)
        let run = try CommandRunner.run(
            ["publish", "--feed", "cars", "--reset", "--file", "-", "--timeout", "60"] + control + [
                "--ingest", daemon.ingest,
            ], input: input)
        #expect(run.process.terminationStatus == 0, "\(run.stderr)")
        #expect(run.stdout == "ok cars seq=2\n", "\(run.stdout)")
        #expect(run.stderr.contains("in parts"), "\(run.stderr)")

        let session = try ReplicaSession(
            feed: "cars", controlEndpoint: daemon.control, publishEndpoint: daemon.publish, timeout: .seconds(30))
        let replica = try session.start()
        #expect(replica.seq == 2)
        let rows = replica.snapshotJSON["sections"]?.arrayValue?.reduce(0) { $0 + ($1["rows"]?.arrayValue?.count ?? 0) }
        #expect(rows == 20_000)
        #expect(!(replica.snapshotJSON.description.contains("\"old\"")))
    }

    @Test("a reset abandoned after some parts changes nothing, and its name is refused once the daemon restarted")
    func abandonedReset() throws {
        let daemon = try DaemonProcess(plugins: ["librowcast-product.so"])
        let peer = try RawPeer(daemon)
        _ = try peer.request(["op": "upsert", "feed": "cars", "item": DaemonEndToEndTests.product("kept")])
        let begun = try peer.request(["op": "reset_begin", "feed": "cars"])
        let token = try #require(begun["reset"])
        let part = try peer.request([
            "op": "reset_append", "feed": "cars", "reset": token, "part": 0,
            "items": [DaemonEndToEndTests.product("new1"), DaemonEndToEndTests.product("new2")],
        ])
        #expect(part["items"] == 2, "\(part)")
        let snapshot = try peer.request(["op": "snapshot", "feed": "cars"])
        #expect(snapshot["seq"] == 1)
        #expect(snapshot["sections"]?.arrayValue?.first?["rows"]?.arrayValue?.map { $0["id"] } == ["kept"])
        let status = try peer.request(["op": "status"])
        #expect(status["feeds"]?.arrayValue?.first?["items"] == 1)
    }
}
