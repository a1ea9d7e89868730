import Foundation
import RowCastJSON
import RowCastTesting

/// One of the apps under Examples/: its folder, its sample feed published through
/// `rowcast publish --file`, and its expected rows (`expected-rows.json`, the snapshot's
/// sections). `ROWCAST_UPDATE_EXPECTED=1` rewrites the expected file from what rowcastd
/// answered, for a person to review.
struct ExampleApp {
    /// The folder name under Examples/ (`articles`).
    let name: String

    /// The app's folder.
    var folder: URL { BuildProducts.repositoryRoot.appendingPathComponent("Examples/\(name)") }

    /// The app's cell directory (whether or not it has one).
    var cells: String { folder.appendingPathComponent("cells").path }

    /// Publishes the sample feed into `feed` with the CLI, acked; throws when a line failed.
    func publishSampleFeed(to daemon: DaemonProcess, feed: String) throws {
        let run = try CommandRunner.run([
            "publish", "--feed", feed, "--file", folder.appendingPathComponent("feed.ndjson").path, "--control",
            daemon.control,
        ])
        guard run.process.terminationStatus == 0 else {
            throw TestFailure("publishing \(name)/feed.ndjson failed: \(run.stderr)")
        }
    }

    /// Builds the app's C plugin (`plugin/NAME.c`) into a new plugin directory.
    func compileCPlugin() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory("rowcast-example-plugins")
        try FaultPlugin.compile(
            folder.appendingPathComponent("plugin/\(name).c").path,
            to: directory.url.appendingPathComponent("librowcast-\(name).so").path)
        return directory
    }

    /// Whether the snapshot's `sections` equal the expected file (member order aside).
    func matchesExpectedRows(_ sections: JSONValue) throws -> Bool {
        let file = folder.appendingPathComponent("expected-rows.json")
        let actual = try JSONSerialization.jsonObject(with: Data(sections.serialized()))
        if ProcessInfo.processInfo.environment["ROWCAST_UPDATE_EXPECTED"] == "1" {
            try JSONSerialization.data(
                withJSONObject: actual, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            ).write(to: file)
        }
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: file))
        let canonical = { (value: Any) throws -> Data in
            try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
        }
        return try canonical(actual) == canonical(expected)
    }
}
