import Foundation
import RowCastJSON
import Testing

/// The README's tour, run for real: rowcastd, `rowcast publish`, `rowcast subscribe --replica`
/// and `rowcast snapshot`, as separate processes over loopback tcp.
@Suite(.serialized)
struct CommandLineEndToEndTests {
    @Test("a live replica ends byte-identical to the snapshot, through a reset and deletes")
    func replicaMatchesSnapshot() throws {
        let daemon = try DaemonProcess()
        // Each subcommand takes only the endpoints it uses.
        let endpoints = ["--control", daemon.control]
        let subscribeEndpoints = endpoints + ["--publish", daemon.publish]
        let product = ["--field", "operatedBy=Tesla", "--field", "price=39999", "--field", "image=https://img/p.png"]
        // Each acked publish below is its own batch and changes the feed: seven deltas in all.
        let subscriber = try CommandRunner(
            ["subscribe", "--feed", "cars", "--replica", "--final", "--until-seq", "7", "--timeout", "30"]
                + subscribeEndpoints)
        #expect(subscriber.waitForStandardError(containing: "following feed cars"))

        let steps: [([String], String)] = [
            (
                ["publish", "--feed", "cars", "--type", "product", "--id", "42", "--field", "name=Model 3"] + product,
                ""
            ),
            (
                [
                    "publish", "--feed", "cars", "--type", "product", "--id", "43", "--section", "used", "--field",
                    "name=Model S",
                ] + product, ""
            ),
            (
                [
                    "publish", "--feed", "cars", "--type", "advertising", "--id", "ad1", "--section", "ads", "--field",
                    "name=Sale",
                    "--field", "operatedBy=Bob", "--field", "price=10", "--field", "image=i", "--field",
                    "url=https://example.com",
                ], ""
            ),
            (["publish", "--file", "-"], Self.resetRequest),
            (["publish", "--feed", "cars", "--delete", "--id", "p1"], ""),
            (
                [
                    "publish", "--feed", "cars", "--type", "product", "--id", "p2", "--sort=-1", "--field",
                    "name=Renamed",
                ] + product, ""
            ),
            (["publish", "--feed", "cars", "--delete-section", "--section", "ads"], ""),
        ]
        for (arguments, input) in steps {
            let run = try CommandRunner.run(arguments + endpoints, input: input)
            #expect(run.process.terminationStatus == 0, "\(arguments): \(run.stderr)")
            #expect(run.stdout.hasPrefix("ok cars seq="), "\(run.stdout)")
        }
        #expect(subscriber.wait() == 0, "subscriber: \(subscriber.stderr)")
        let state = try CommandRunner.run(["snapshot", "--feed", "cars", "--state"] + endpoints)
        let replicaFinal = subscriber.stdout.split(separator: "\n").last.map(String.init)
        #expect(replicaFinal == state.stdout.trimmingCharacters(in: .newlines))

        let snapshot = try JSONParser.parse(state.stdout)
        let ids = snapshot["sections"]?.arrayValue?.flatMap {
            $0["rows"]?.arrayValue?.map { $0["id"]!.stringValue! } ?? []
        }
        #expect(ids == ["p2", "p3"])
        #expect(snapshot["seq"] == 7)
    }

    static let resetRequest: String = {
        func item(_ id: String, _ name: String) -> JSONValue {
            [
                "id": .string(id), "type": "product",
                "data": ["name": .string(name), "operatedBy": "Tesla", "price": 1, "image": "i"],
            ]
        }
        let ad: JSONValue = [
            "id": "ad2", "type": "advertising", "section": "ads",
            "data": ["name": "Ad", "operatedBy": "Bob", "price": 2, "image": "i", "url": "https://example.com/2"],
        ]
        let request: JSONValue = [
            "op": "reset", "feed": "cars", "items": [item("p1", "One"), item("p2", "Two"), item("p3", "Three"), ad],
        ]
        return request.description + "\n"
    }()

    @Test("an invalid publish prints one error line naming the field and exits non-zero")
    func publishErrorLine() throws {
        let daemon = try DaemonProcess()
        let run = try CommandRunner.run([
            "publish", "--feed", "cars", "--type", "product", "--id", "9", "--field", "name=Nope", "--control",
            daemon.control,
        ])
        #expect(run.process.terminationStatus != 0)
        #expect(run.stderr.hasPrefix("error: missing_field: "))
        #expect(run.stderr.contains("operatedBy"))
        #expect(run.stderr.split(separator: "\n").count == 1)
    }
}
