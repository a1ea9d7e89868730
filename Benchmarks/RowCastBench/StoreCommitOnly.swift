import Foundation
import RowCastEngine
import RowCastStore

/// `rowcast-bench --store-only N`: N car items written to a fresh SQLite store (WAL,
/// `synchronous=NORMAL`, in the temporary directory) in commits of ``itemsPerCommit``, ids
/// sorted in each as the engine hands them over: the commit thread's work per item, without
/// the timing of a live daemon deciding how many items each commit carries.
enum StoreCommitOnly {
    /// Commits `commit` to `store`: the function callgrind counts (`--toggle-collect`), so the
    /// items' making is not counted.
    @inline(never)
    static func commitForCount(_ store: SQLiteFeedStore, _ commit: StoreCommit) throws {
        try store.commit([commit])
    }

    /// Items per commit: a fixed count, so that the figure repeats (a live daemon's commits
    /// carry a few items at a trickle and up to 4,096 messages under a flood).
    static let itemsPerCommit = 64

    static func run(items: Int) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rowcast-bench-store-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let store = try SQLiteFeedStore(directory: directory, synchronous: .normal)
            var seq: UInt64 = 0
            var start = 0
            while start < items {
                let end = min(start + itemsPerCommit, items)
                let changed = (start..<end).map { index -> (id: String, item: PersistedItem?) in
                    let id = "store-\(index)"
                    let json = Array(
                        #"{"id":"\#(id)","type":"product","section":"s\#(index % 3)","data":{"name":"Tesla Model 3 Long Range \#(index)","operatedBy":"Tesla Inc.","price":\#(30000 + index % 20000),"image":"https://img.example/cars/\#(index % 997).png"}}"#
                            .utf8)
                    return (
                        id,
                        PersistedItem(
                            id: id, type: "product", section: "s\(index % 3)", sort: nil, arrival: UInt64(index),
                            json: json)
                    )
                }.sorted { $0.id < $1.id }
                seq += 1
                var commit = StoreCommit()
                commit.feeds = [
                    FeedChanges(
                        feed: "cars", seq: seq, epoch: "0123456789abcdef", nextArrival: UInt64(end), replacedAll: false,
                        items: changed, sections: [])
                ]
                // Only the commit is counted (callgrind's --toggle-collect on this function).
                try commitForCount(store, commit)
                start = end
            }
            store.close()
        } catch {
            FileHandle.standardError.write(Data("rowcast-bench --store-only: \(error)\n".utf8))
            exit(1)
        }
    }
}
