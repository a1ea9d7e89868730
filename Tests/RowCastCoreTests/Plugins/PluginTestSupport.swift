import Foundation
import RowCastTesting
import Logging
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import Synchronization
import Testing

/// Paths, temporary directories, C fixture builds and loggers for the plugin tests.
enum PluginTestSupport {
    /// The repository root, from this file's path.
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Plugins
        .deletingLastPathComponent()  // RowCastCoreTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The C plugin fixtures.
    static let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures/c-plugin")

    /// The ABI header's directory.
    static let abiInclude = repositoryRoot.appendingPathComponent("SDK/Sources/CRowCastPlugin/include")

    /// The directory of the running test binary: SwiftPM's build products directory, where
    /// `swift build` puts `librowcast-*.so`.
    static var buildProducts: URL {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }

    /// The path of a real plugin built by `swift build`, or a failure telling how to build it.
    static func builtPlugin(_ product: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let path = buildProducts.appendingPathComponent("librowcast-\(product).so").path
        guard FileManager.default.fileExists(atPath: path) else {
            Issue.record(
                "\(path) does not exist: run `swift build` before `swift test` (the plugin products are built by swift build)",
                sourceLocation: sourceLocation)
            throw MissingBuildProduct(path: path)
        }
        return path
    }

    /// A fresh temporary directory, removed when `body` returns or throws.
    static func withTemporaryDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("rowcast-plugin-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    /// Compiles C fixture `sources` into the shared library `directory/fileName`.
    @discardableResult
    /// - Parameter include: a directory searched for `rowcast_plugin.h` before the SDK's (an
    ///   older header, say).
    static func compile(
        _ sources: [String], into directory: String, as fileName: String, defines: [String] = [], include: URL? = nil
    ) throws -> String {
        let output = directory + "/" + fileName
        let arguments =
            ["-shared", "-fPIC", "-O1", "-Wall", "-Werror"] + (include.map { ["-I", $0.path] } ?? []) + [
                "-I", abiInclude.path,
            ]
            + defines.map { "-D" + $0 }
            + sources.map { fixtures.appendingPathComponent($0).path }
            + ["-o", output]
        try run("/usr/bin/env", ["cc"] + arguments)
        return output
    }

    /// Runs a program and fails with its output when it exits non-zero.
    static func run(_ program: String, _ arguments: [String]) throws {
        let result = try ProgramRun.run(program, arguments)
        guard result.status == 0 else {
            throw CommandFailed(command: ([program] + arguments).joined(separator: " "), output: result.output)
        }
    }

    /// A loader whose log lines are kept in `records`.
    static func loader() -> (PluginLoader, LogRecords) {
        let records = LogRecords()
        let logger = Logger(label: "rowcast.test.plugins") { _ in RecordingLogHandler(records: records) }
        return (PluginLoader(logger: logger), records)
    }

    /// `text` as bytes.
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The text of an `.ok` result, or `nil`.
    static func okText(_ result: PluginCallResult) -> String? {
        if case .ok(let bytes) = result { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }
}

/// A real plugin product is missing: `swift build` has not run.
struct MissingBuildProduct: Error, CustomStringConvertible {
    /// The missing file.
    let path: String
    /// What to do.
    var description: String { "\(path) does not exist: run `swift build` before `swift test`" }
}

/// A command run by a test failed.
struct CommandFailed: Error, CustomStringConvertible {
    /// The command line.
    let command: String
    /// Its combined output.
    let output: String
    /// Both.
    var description: String { "\(command) failed:\n\(output)" }
}

/// Log lines captured by ``RecordingLogHandler``.
final class LogRecords: Sendable {
    private let storage = Mutex<[(level: Logger.Level, message: String)]>([])

    /// Appends one line.
    func append(_ level: Logger.Level, _ message: String) {
        storage.withLock { $0.append((level, message)) }
    }

    /// The messages logged at `level` or above.
    func messages(atLeast level: Logger.Level) -> [String] {
        storage.withLock { $0.filter { $0.level >= level }.map(\.message) }
    }
}

/// A log handler that records into ``LogRecords`` instead of printing.
struct RecordingLogHandler: LogHandler {
    /// Where lines go.
    let records: LogRecords
    /// Handler metadata (unused).
    var metadata: Logger.Metadata = [:]
    /// Records everything.
    var logLevel: Logger.Level = .trace

    /// Metadata by key.
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Records one line.
    func log(event: LogEvent) {
        records.append(event.level, event.message.description)
    }
}
