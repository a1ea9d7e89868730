import Foundation
import RowCastJSON
import Testing

/// `rowcast publish --window`: many acked requests in flight, answered in order.
@Suite(.serialized)
struct PublishWindowEndToEndTests {
    @Test("a file of 300 requests published 32 at a time: one ok line each, in order, seq never going back")
    func windowedFile() throws {
        let daemon = try DaemonProcess()
        var lines: [String] = []
        for index in 0..<300 {
            let id = "p\(index % 50)"
            if index % 7 == 6 {
                lines.append(#"{"op":"section","feed":"cars","section":{"id":"s\#(index % 3)","order":\#(index % 5)}}"#)
            } else {
                lines.append(
                    #"{"id":"\#(id)","type":"product","section":"s\#(index % 3)","data":{"name":"v\#(index)","operatedBy":"T","price":\#(index),"image":"i"}}"#
                )
            }
        }
        let run = try CommandRunner(
            [
                "publish", "--feed", "cars", "--file", "-", "--window", "32", "--retry-timeout", "2", "--json",
                "--control", daemon.control,
            ], input: lines.joined(separator: "\n"))
        #expect(run.wait(timeout: 60) == 0, "\(run.stderr)")
        let replies = run.stdout.split(separator: "\n").map { try? JSONParser.parse(String($0)) }
        #expect(replies.count == 300)
        var last = 0
        for (index, reply) in replies.enumerated() {
            #expect(reply?["ok"] == true)
            #expect(reply?["req"] == .number(Double(index + 1)))
            let seq = Int(reply?["seq"]?.numberValue ?? -1)
            #expect(seq >= last)
            last = seq
        }
        let snapshot = try RawPeer(daemon).request(["op": "snapshot", "feed": "cars"])
        #expect(snapshot["seq"] == .number(Double(last)))
        let titles = Set(
            (snapshot["sections"]?.arrayValue ?? []).flatMap { $0["rows"]?.arrayValue ?? [] }.compactMap {
                $0["content"]?["title"]?.stringValue
            })
        #expect(titles.count == 50)
        #expect(titles.contains("v299") || titles.contains("v298"))
    }

    @Test("--window is checked")
    func windowValidated() throws {
        let run = try CommandRunner.run([
            "publish", "--feed", "cars", "--id", "1", "--type", "product", "--window", "0",
        ])
        #expect(run.process.terminationStatus == 64)
        #expect(run.stderr.contains("--window"))
    }
}
