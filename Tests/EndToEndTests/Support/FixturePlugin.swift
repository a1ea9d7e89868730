import Foundation
import RowCastTesting

/// Builds one of the C fixtures of `Tests/Fixtures/c-plugin` into a plugin directory of its own.
enum FixturePlugin {
    /// A new plugin directory holding `source` (a file name in Tests/Fixtures/c-plugin) built
    /// as `fileName` (`librowcast-*.so`).
    static func directory(source: String, fileName: String) throws -> TemporaryDirectory {
        guard let compiler = FaultPlugin.compiler else {
            throw TestFailure("no C compiler (cc or gcc) to build \(source)")
        }
        let directory = try TemporaryDirectory("rowcast-fixture-plugins")
        let path = BuildProducts.repositoryRoot.appendingPathComponent("Tests/Fixtures/c-plugin/\(source)").path
        let output = directory.url.appendingPathComponent(fileName).path
        let arguments = [
            "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-I", FaultPlugin.include, path, "-o",
            output,
        ]
        let result = try ProgramRun.run(compiler, arguments)
        guard result.status == 0 else {
            throw TestFailure("\(compiler) \(arguments.joined(separator: " ")) failed:\n\(result.output)")
        }
        return directory
    }
}
