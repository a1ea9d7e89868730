import Foundation

/// Where `swift build` put the executables and plugin libraries these tests run.
enum BuildProducts {
    /// The build products directory: `$ROWCAST_BUILD_DIR`, or the directory of the test bundle.
    static let directory: URL = {
        if let explicit = ProcessInfo.processInfo.environment["ROWCAST_BUILD_DIR"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit).standardizedFileURL
        }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("rowcastd").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug")
    }()

    /// The path of a built product, or an error telling how to build it.
    static func path(_ name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        guard FileManager.default.fileExists(atPath: path) else {
            throw TestFailure("\(path) does not exist: run `swift build` first (`make test` does)")
        }
        return path
    }

    /// The repository root (for fixtures).
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

/// A test failure with a message.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
