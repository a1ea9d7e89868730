import Foundation
import RowCastJSON
import Testing

/// `rowcast select --value`, `rowcast events` and `rowcast locate` against a real rowcastd
/// running the C fixture `profile_plugin.c`.
@Suite(.serialized)
struct InteractionCommandLineEndToEndTests {
    @Test(
        "rowcast select --value edits, rowcast events prints the events after N, rowcast locate prints the row's place; errors exit 1 in one line",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(2)))
    func commands() throws {
        let plugins = try FixturePlugin.directory(source: "profile_plugin.c", fileName: "librowcast-profile.so")
        let daemon = try DaemonProcess(pluginDirectory: plugins)
        defer { daemon.stop() }
        let control = ["--control", daemon.control]
        let publish = try CommandRunner.run(
            ["publish", "--feed", "people", "--type", "profile", "--id", "me", "--field", "email=ann@old.example"]
                + control)
        #expect(publish.process.terminationStatus == 0, "\(publish.stderr)")

        let edit = try CommandRunner.run(
            [
                "select", "--feed", "people", "--id", "me", "--action", "edit_email", "--value", "ann@new.example",
                "--json",
            ] + control)
        #expect(edit.process.terminationStatus == 0, "\(edit.stderr)")
        let reply = try JSONParser.parse(Array(edit.stdout.utf8))
        #expect(reply["change"] == "update")
        #expect(reply["seq"] == 2)
        let swipe = try CommandRunner.run(
            ["select", "--feed", "people", "--id", "me", "--action", "starred", "--value", "true"] + control)
        #expect(swipe.process.terminationStatus == 0, "\(swipe.stderr)")

        let wrong = try CommandRunner.run(
            ["select", "--feed", "people", "--id", "me", "--action", "edit_email", "--value", "42"] + control)
        #expect(wrong.process.terminationStatus == 1)
        #expect(wrong.stderr.hasPrefix("error: invalid_value: "), "\(wrong.stderr)")

        let events = try CommandRunner.run(["events", "--feed", "people", "--after", "1"] + control)
        #expect(events.process.terminationStatus == 0, "\(events.stderr)")
        let lines = events.stdout.split(separator: "\n").map { try? JSONParser.parse(Array($0.utf8)) }
        #expect(lines.map { $0?["eventSeq"] } == [2])
        #expect(lines.first??["action"] == "starred")

        let locate = try CommandRunner.run(["locate", "--feed", "people", "--id", "me", "--json"] + control)
        #expect(locate.process.terminationStatus == 0, "\(locate.stderr)")
        let place = try JSONParser.parse(Array(locate.stdout.utf8))
        #expect(place["section"] == 0 && place["row"] == 0 && place["seq"] == 3)
        #expect(place["sectionId"] == "default" && place["epoch"]?.stringValue?.isEmpty == false, "\(locate.stdout)")
        // Without --json, one line for a person.
        let readable = try CommandRunner.run(["locate", "--feed", "people", "--id", "me"] + control)
        #expect(readable.process.terminationStatus == 0, "\(readable.stderr)")
        #expect(
            readable.stdout.hasPrefix("item me of feed people: section 0 (default), row 0, at seq 3 (epoch "),
            "\(readable.stdout)")
        let missing = try CommandRunner.run(["locate", "--feed", "people", "--id", "ghost"] + control)
        #expect(missing.process.terminationStatus == 1)
        #expect(missing.stderr.hasPrefix("error: not_found: "), "\(missing.stderr)")
    }
}
