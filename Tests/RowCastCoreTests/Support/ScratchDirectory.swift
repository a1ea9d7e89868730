import Foundation

/// A fresh directory under the system temporary directory, removed on deinit.
final class ScratchDirectory {
    let path: String

    init(_ prefix: String = "rowcast-core") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
