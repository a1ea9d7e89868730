import Foundation
@testable import RowCastEngine
import RowCastJSON
@testable import RowCastStore
import Testing

/// The state is its user's alone: a new state directory is 0700 and every state file 0600;
/// a directory and files an older rowcastd or an operator left open are made private at the
/// next start (and the change logged); a directory open to others that rowcastd does not own
/// is refused, naming the command that fixes it.
@Suite("State file modes", .serialized)
struct StateFileModesTests {
    func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int).flatMap { $0 }
    }

    /// Opens a store in `directory`, commits one item and closes it cleanly.
    func openAndCommit(_ directory: String) throws {
        let harness = EngineHarness()
        let durable = DurableEngine(
            engine: harness.engine, store: try SQLiteFeedStore(directory: directory, synchronous: .normal))
        _ = try durable.start()
        _ = durable.submit([IncomingMessage(origin: .ingest, body: upsert("cars", item("1")).serialized())])
        _ = try durable.flush()
        let files = ["rowcast.db", "rowcast.db-wal", "rowcast.db-shm", "rowcast.lock", "rowcast.position"]
        for file in files where FileManager.default.fileExists(atPath: directory + "/" + file) {
            #expect(mode(directory + "/" + file) == 0o600, "\(file) while open")
        }
        #expect(durable.close() == nil)
    }

    @Test("a new state directory is 0700 and every file in it 0600 (the umask would allow 0755 and 0644)")
    func newStateIsPrivate() throws {
        let scratch = try ScratchDirectory()
        let directory = scratch.path + "/state"
        try openAndCommit(directory)
        #expect(mode(directory) == 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("rowcast.") }
        #expect(names.contains("rowcast.db"))
        for name in names { #expect(mode(directory + "/" + name) == 0o600, "\(name)") }
    }

    @Test("a directory open to others and files readable by others are made private at the next start")
    func openStateIsFixed() throws {
        let scratch = try ScratchDirectory()
        let directory = scratch.path + "/state"
        try openAndCommit(directory)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("rowcast.") }
        for name in names { #expect(chmod(directory + "/" + name, 0o644) == 0) }
        #expect(chmod(directory, 0o755) == 0)
        // Not ours: left alone.
        #expect(FileManager.default.createFile(atPath: directory + "/notes.txt", contents: Data(), attributes: nil))
        #expect(chmod(directory + "/notes.txt", 0o644) == 0)

        let changes = try StateFileModes.restrict(directory: directory)
        #expect(changes.contains { $0.contains("0755 -> 0750") }, "\(changes)")
        #expect(mode(directory) == 0o750)
        for name in names { #expect(mode(directory + "/" + name) == 0o600, "\(name)") }
        #expect(mode(directory + "/notes.txt") == 0o644)
        #expect(try StateFileModes.restrict(directory: directory).isEmpty)

        for name in names { #expect(chmod(directory + "/" + name, 0o644) == 0) }
        try openAndCommit(directory)  // the store does the same at its start
    }

    @Test(
        "as root, a state directory open to others that belongs to another user is refused with the fix",
        .enabled(if: getuid() == 0, "needs root to give the directory away"))
    func foreignOpenDirectoryIsRefused() throws {
        let scratch = try ScratchDirectory()
        let directory = scratch.path + "/state"
        #expect(mkdir(directory, 0o755) == 0)
        #expect(chmod(directory, 0o755) == 0)
        #expect(chown(directory, 65534, 65534) == 0)
        #expect {
            _ = try SQLiteFeedStore(directory: directory, synchronous: .normal)
        } throws: { error in
            "\(error)".contains("chmod o-rwx \(directory)") && "\(error)".contains("0755")
        }
    }
}
