#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A small file beside the database (`rowcast.position`) that records how far the database
/// had got: its store id and commit count, rewritten in place after every commit (no sync:
/// the operating system keeps it through a crash of the process).
///
/// At start, a database whose commit count is behind its marker, or that is missing, empty or
/// another store, has lost history: rowcastd refuses it until the loss is accepted
/// (`StateLossCheck`), and its feeds then start new epochs so subscribers resync instead of
/// silently diverging. A missing marker proves nothing either way: new epochs.
///
/// Not `Sendable`: it owns a file descriptor.
final class CommitMarker {
    /// What a marker file says.
    struct Position: Equatable {
        /// The id of the store it belongs to.
        var storeID: String
        /// The store's commit count after the last commit.
        var commits: UInt64
    }

    /// The marker file's path.
    let path: String
    private var descriptor: Int32 = -1
    /// Fixed record size, so an in-place rewrite never leaves a longer old tail.
    private static let recordSize = 96

    /// A marker at `path` (not opened yet).
    init(path: String) {
        self.path = path
    }

    /// What the file says: nil when it is missing or unreadable.
    func read() -> Position? {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { Glibc.close(file) }
        var buffer = [UInt8](repeating: 0, count: Self.recordSize)
        let count = pread(file, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let fields = String(decoding: buffer[0..<count], as: UTF8.self).trimmingSpaces.split(separator: " ")
        guard fields.count == 4, fields[0] == "rowcast-position", fields[1] == "1", let commits = UInt64(fields[3])
        else { return nil }
        return Position(storeID: String(fields[2]), commits: commits)
    }

    /// Rewrites the file with `position`; returns false (and leaves errno) when it cannot.
    @discardableResult
    func write(_ position: Position) -> Bool {
        if descriptor < 0 {
            descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { return false }
        }
        var record = Array("rowcast-position 1 \(position.storeID) \(position.commits)".utf8)
        record += [UInt8](repeating: 0x20, count: max(1, Self.recordSize - record.count - 1)) + [0x0A]
        return pwrite(descriptor, record, record.count, 0) == record.count
    }

    /// Writes `position` and syncs the file (at start and at a clean stop).
    @discardableResult
    func writeAndSync(_ position: Position) -> Bool {
        write(position) && fsync(descriptor) == 0
    }

    /// Closes the file.
    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}
