import Foundation
import RowCastTesting
import RowCastDaemon
import Testing

/// The unit file, checked by systemd's own tools when they are installed: the exposure score
/// of `systemd-analyze security --offline=true` is at most 1.0 (issue 12: with the ipc
/// endpoints), and `systemd-analyze verify`
/// finds nothing once the binary path points at the built rowcastd. Its resource bounds and
/// start limit are there, and its stop timeout leaves room for the drain deadline.
struct SystemdUnitTests {
    static let unit = TestPaths.repositoryRoot.appendingPathComponent("systemd/rowcastd.service").path
    static let analyzer = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(
        "systemd-analyze security rates the unit 1.0 or lower",
        .enabled(if: analyzer != nil, "systemd-analyze is not installed"))
    func securityScore() throws {
        let result = try ProgramRun.run(Self.analyzer!, ["security", "--offline=true", "--no-pager", Self.unit])
        let line = try #require(
            result.output.split(separator: "\n").first { $0.contains("Overall exposure level") },
            "no score in:\n\(result.output)")
        let score = try #require(
            line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) },
            "cannot read the score in: \(line)")
        #expect(score <= 1.0, "exposure \(score) is above 1.0:\n\(result.output)")
    }

    @Test(
        "systemd-analyze verify is clean apart from the binary path",
        .enabled(if: analyzer != nil, "systemd-analyze is not installed"))
    func verify() throws {
        // The rowcastd of this test build (.build/debug, or .build-asan/debug under a sanitizer).
        var products = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent()
        while products.path != "/",
            !FileManager.default.fileExists(atPath: products.appendingPathComponent("rowcastd").path)
        {
            products.deleteLastPathComponent()
        }
        let built = products.appendingPathComponent("rowcastd").path
        try #require(FileManager.default.isExecutableFile(atPath: built), "\(built) is missing: run swift build first")
        let directory = try TemporaryDirectory("rowcast-unit")
        let copy = directory.path + "/rowcastd.service"
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
        #expect(text.contains("/usr/local/bin/rowcastd"))
        try text.replacingOccurrences(of: "/usr/local/bin/rowcastd", with: built).write(
            toFile: copy, atomically: true, encoding: .utf8)
        let result = try ProgramRun.run(Self.analyzer!, ["verify", copy])
        #expect(result.status == 0 && result.output.isEmpty, "systemd-analyze verify:\n\(result.output)")
    }

    /// The unit's settings as (section, key) → value; a repeated key keeps its last value.
    static func settings() throws -> [String: String] {
        var section = ""
        var settings: [String: String] = [:]
        for line in try String(contentsOfFile: unit, encoding: .utf8).split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("#") || text.isEmpty { continue }
            if text.hasPrefix("[") { section = String(text.dropFirst().dropLast()); continue }
            guard let equals = text.firstIndex(of: "=") else { continue }
            settings[section + "." + text[..<equals]] = String(text[text.index(after: equals)...])
        }
        return settings
    }

    @Test(
        "the unit bounds memory and tasks, stops restarting a crash loop, and gives a stop time for the drain deadline")
    func limits() throws {
        let settings = try Self.settings()
        #expect(settings["Service.MemoryMax"] != nil)
        #expect(Int(settings["Service.TasksMax"] ?? "") ?? 0 >= 64)
        #expect(settings["Unit.StartLimitIntervalSec"] != nil)
        #expect(Int(settings["Unit.StartLimitBurst"] ?? "") != nil)
        // The drain deadline must pass before systemd's SIGKILL, so the exit status tells.
        let stop = Int(settings["Service.TimeoutStopSec"] ?? "") ?? 0
        #expect(
            stop * 1000 > DaemonConfiguration().drainTimeoutMilliseconds,
            "TimeoutStopSec=\(stop) is not above the drain deadline")
        #expect(settings["Service.RestartPreventExitStatus"]?.split(separator: " ").contains("65") == true)
    }
}
