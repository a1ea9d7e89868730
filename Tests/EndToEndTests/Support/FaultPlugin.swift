import Foundation
import RowCastTesting

/// Builds the C fixture `Tests/Fixtures/c-plugin/fault_plugin.c` (a plugin that crashes, hangs
/// or returns bad output for chosen item ids) into plugin libraries, and overwrites a plugin
/// file in place the way a careless deploy does.
enum FaultPlugin {
    /// The file name rowcastd loads the fixture from (plugin files are `librowcast-*.so`).
    static let fileName = "librowcast-fault.so"

    /// The item type the fixture renders (its default `FAULT_TYPE`).
    static let itemType = "fault"

    /// The C compiler the tests build the fixture with, or nil when there is none.
    static let compiler: String? = ["/usr/bin/cc", "/usr/bin/gcc", "/usr/local/bin/cc"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The fixture's source file.
    static let source = BuildProducts.repositoryRoot.appendingPathComponent("Tests/Fixtures/c-plugin/fault_plugin.c")
        .path

    /// The directory holding `rowcast_plugin.h`.
    static let include = BuildProducts.repositoryRoot.appendingPathComponent("SDK/Sources/CRowCastPlugin/include").path

    /// Compiles the fixture into the shared library `output`, with `defines` given as `-D`
    /// (e.g. `FAULT_VERSION="2"`, `FAULT_NO_SEGV`); returns `output`.
    @discardableResult
    static func compile(to output: String, defines: [String] = []) throws -> String {
        try compile(source, to: output, defines: defines)
    }

    /// Compiles the C plugin `source` against `rowcast_plugin.h` into the shared library
    /// `output`, warnings as errors; returns `output`.
    @discardableResult
    static func compile(_ source: String, to output: String, defines: [String] = []) throws -> String {
        guard let compiler else { throw TestFailure("no C compiler (cc or gcc) to build \(source)") }
        let arguments =
            ["-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-I", include]
            + defines.map { "-D" + $0 } + [source, "-o", output]
        try run(compiler, arguments)
        return output
    }

    /// A new plugin directory holding only the fixture, built with `defines`, as `fileName`.
    static func directory(defines: [String] = []) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory("rowcast-fault-plugins")
        try compile(to: directory.url.appendingPathComponent(fileName).path, defines: defines)
        return directory
    }

    /// Overwrites `target` with the bytes of `source` through `/bin/cp`: the same inode,
    /// truncated and rewritten in place (no rename), while rowcastd may have it mapped.
    static func copyInPlace(_ source: String, over target: String) throws {
        try run("/bin/cp", [source, target])
    }

    /// Runs `program` with `arguments` to completion; throws with its output when it fails.
    private static func run(_ program: String, _ arguments: [String]) throws {
        let result = try ProgramRun.run(program, arguments)
        guard result.status == 0 else {
            throw TestFailure(
                "\(([program] + arguments).joined(separator: " ")) failed (status \(result.status)):\n\(result.output)")
        }
    }
}
