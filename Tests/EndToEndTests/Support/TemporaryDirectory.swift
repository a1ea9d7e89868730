import Foundation

/// A fresh directory under the system temporary directory, removed by `remove()`.
final class TemporaryDirectory: Sendable {
    let url: URL
    var path: String { url.path }

    init(_ prefix: String = "rowcast-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    deinit { remove() }
}
