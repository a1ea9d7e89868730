import RowCastEngine
import RowCastJSON
import RowCastWire
import Testing

/// Every promise the engine relies on from a `FeedStore`, run against each implementation
/// (`StoreKind`). Each test opens stores as a restarting daemon would: commit, close, open the
/// same place again, and read back.
struct FeedStoreConformanceTests {
    func storedItem(
        _ id: String, section: String = "s", sort: Double? = nil, arrival: UInt64, json: String = #"{"p":1}"#
    ) -> PersistedItem {
        PersistedItem(id: id, type: "product", section: section, sort: sort, arrival: arrival, json: Array(json.utf8))
    }

    func storedSection(_ id: String, order: Double? = nil, arrival: UInt64) -> PersistedSection {
        PersistedSection(
            id: id, order: order, type: "banner", header: ["title": .string(id)], declared: true, arrival: arrival)
    }

    func changes(
        _ feed: String, seq: UInt64, epoch: String = "e1", nextArrival: UInt64, replacedAll: Bool = false,
        items: [(String, PersistedItem?)] = [], sections: [(String, PersistedSection?)] = []
    ) -> FeedChanges {
        FeedChanges(
            feed: feed, seq: seq, epoch: epoch, nextArrival: nextArrival, replacedAll: replacedAll,
            items: items.map { (id: $0.0, item: $0.1) }, sections: sections.map { (id: $0.0, section: $0.1) })
    }

    func commit(_ feeds: FeedChanges...) -> StoreCommit {
        var commit = StoreCommit()
        commit.feeds = feeds
        return commit
    }

    /// The place's state after a restart.
    func reloaded(_ place: any StorePlace) throws -> StoredState {
        let store = try place.open()
        defer { store.close() }
        return try store.load()
    }

    @Test("a new store is empty and fresh", arguments: StoreKind.allCases)
    func fresh(kind: StoreKind) throws {
        let place = try kind.makePlace()
        let store = try place.open()
        let state = try store.load()
        #expect(state.feeds.isEmpty && state.ledger.isEmpty && state.renderers.isEmpty && state.events.isEmpty)
        #expect(state.continuity == .fresh)
        #expect(try store.feeds(named: ["f"]).isEmpty)
        store.close()
        #expect(store.closeFailure == nil)
    }

    @Test(
        "items, sections and positions come back exactly as committed, after a clean restart",
        arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) throws {
        let place = try kind.makePlace()
        let store = try place.open()
        _ = try store.load()
        let items = [
            storedItem("a\u{1}b", section: "s\u{1F}1", sort: -2.5, arrival: 1, json: #"{"id":"a\u0001b"}"#),
            storedItem("é€😀", section: "default", arrival: 2, json: "{\"x\":\"é\"}"),
            storedItem("empty", arrival: 3, json: ""),
        ]
        let sections = [
            storedSection("s\u{1F}1", order: 2, arrival: 1),
            PersistedSection(id: "bare", order: nil, type: nil, header: nil, declared: false, arrival: 2),
        ]
        try store.commit(
            commit(
                changes(
                    "f", seq: 7, epoch: "epoch-7", nextArrival: 4, items: items.map { ($0.id, $0) },
                    sections: sections.map { ($0.id, $0) })))
        store.close()

        let state = try reloaded(place)
        #expect(state.continuity == .continued)
        let feed = try #require(state.feeds.first { $0.name == "f" })
        #expect(feed.seq == 7 && feed.epoch == "epoch-7" && feed.nextArrival == 4)
        #expect(feed.items.sorted { $0.arrival < $1.arrival } == items)
        #expect(feed.sections.sorted { $0.arrival < $1.arrival } == sections)
    }

    @Test("consecutive batches in one commit are applied in order, in one transaction", arguments: StoreKind.allCases)
    func batchesInOrder(kind: StoreKind) throws {
        let place = try kind.makePlace()
        let store = try place.open()
        _ = try store.load()
        try store.commit([
            commit(
                changes("f", seq: 1, nextArrival: 2, items: [("x", storedItem("x", arrival: 1, json: #"{"v":1}"#))])),
            commit(
                changes(
                    "f", seq: 2, nextArrival: 3,
                    items: [("x", storedItem("x", arrival: 1, json: #"{"v":2}"#)), ("y", storedItem("y", arrival: 2))])),
            commit(
                changes("f", seq: 3, nextArrival: 3, items: [("y", nil)]),
                changes("g", seq: 1, nextArrival: 2, items: [("z", storedItem("z", arrival: 1))])),
        ])
        let feeds = try store.feeds(named: ["f", "g", "never"])
        #expect(Set(feeds.map(\.name)) == ["f", "g"])
        let f = try #require(feeds.first { $0.name == "f" })
        #expect(f.seq == 3)
        #expect(f.items == [storedItem("x", arrival: 1, json: #"{"v":2}"#)])
        store.close()
        #expect(try reloaded(place).feeds.count == 2)
    }

    @Test(
        "a deleted item or section is gone; a feed replaced whole keeps only what the commit wrote",
        arguments: StoreKind.allCases)
    func deletesAndReplace(kind: StoreKind) throws {
        let place = try kind.makePlace()
        let store = try place.open()
        _ = try store.load()
        try store.commit(
            commit(
                changes(
                    "f", seq: 1, nextArrival: 4,
                    items: [
                        ("a", storedItem("a", arrival: 1)), ("b", storedItem("b", arrival: 2)),
                        ("c", storedItem("c", arrival: 3)),
                    ],
                    sections: [("s", storedSection("s", arrival: 1)), ("t", storedSection("t", arrival: 2))])))
        try store.commit(commit(changes("f", seq: 2, nextArrival: 4, items: [("a", nil)], sections: [("t", nil)])))
        var feed = try #require(try store.feeds(named: ["f"]).first)
        #expect(feed.items.map(\.id).sorted() == ["b", "c"])
        #expect(feed.sections.map(\.id) == ["s"])

        try store.commit(
            commit(
                changes(
                    "f", seq: 3, epoch: "e2", nextArrival: 2, replacedAll: true,
                    items: [("n", storedItem("n", arrival: 1))],
                    sections: [("u", storedSection("u", arrival: 1))])))
        feed = try #require(try store.feeds(named: ["f"]).first)
        #expect(feed.items.map(\.id) == ["n"] && feed.sections.map(\.id) == ["u"] && feed.epoch == "e2")
        store.close()
        let restored = try #require(try reloaded(place).feeds.first)
        #expect(restored.items.map(\.id) == ["n"] && restored.seq == 3)
    }

    @Test("a commit of counters alone moves a feed's seq and epoch and keeps its items", arguments: StoreKind.allCases)
    func countersOnly(kind: StoreKind) throws {
        let place = try kind.makePlace()
        let store = try place.open()
        _ = try store.load()
        try store.commit(commit(changes("f", seq: 1, nextArrival: 2, items: [("a", storedItem("a", arrival: 1))])))
        var counters = StoreCommit()
        counters.counters = [FeedCounters(feed: "f", seq: 9, epoch: "e9")]
        #expect(!counters.isEmpty)
        try store.commit(counters)
        store.close()
        let feed = try #require(try reloaded(place).feeds.first)
        #expect(feed.seq == 9 && feed.epoch == "e9" && feed.items.map(\.id) == ["a"])
    }

    @Test("remembered answers are kept and forgotten as committed", arguments: StoreKind.allCases)
    func ledger(kind: StoreKind) throws {
        let place = try kind.makePlace()
        let store = try place.open()
        _ = try store.load()
        let first = LedgerEntry(
            key: LedgerKey(client: "c", req: "1"), order: 1, reply: Array(#"{"ok":true,"req":1}"#.utf8))
        let second = LedgerEntry(
            key: LedgerKey(client: "c", req: "2"), order: 2, reply: Array(#"{"ok":true,"req":2}"#.utf8))
        let other = LedgerEntry(key: LedgerKey(client: "d", req: "x"), order: 3, reply: [0x7B, 0x7D])
        var remember = StoreCommit()
        remember.ledger.recorded = [first, second, other]
        try store.commit(remember)
        var forget = StoreCommit()
        forget.ledger.forgotten = [first.key]
        try store.commit(forget)
        #expect(try store.ledgerEntries().sorted { $0.order < $1.order } == [second, other])
        store.close()
        #expect(try reloaded(place).ledger.sorted { $0.order < $1.order } == [second, other])
    }

    @Test(
        "renderer identities are recorded, and a later record of a type replaces the earlier",
        arguments: StoreKind.allCases)
    func renderers(kind: StoreKind) throws {
        let place = try kind.makePlace()
        let store = try place.open()
        _ = try store.load()
        var first = StoreCommit()
        first.renderers = [
            RendererRecord(kind: .item, type: "product", identity: "product@1"),
            RendererRecord(kind: .header, type: "banner", identity: nil),
        ]
        try store.commit(first)
        var second = StoreCommit()
        second.renderers = [RendererRecord(kind: .item, type: "product", identity: "product@2")]
        try store.commit(second)
        store.close()
        #expect(
            Set(try reloaded(place).renderers) == [
                RendererRecord(kind: .item, type: "product", identity: "product@2"),
                RendererRecord(kind: .header, type: "banner", identity: nil),
            ])
    }

    @Test(
        "action events come back oldest first per feed, and only the newest the retention keeps",
        arguments: StoreKind.allCases)
    func events(kind: StoreKind) throws {
        let place = try kind.makePlace()
        let store = try place.open()
        _ = try store.load()
        func event(_ feed: String, _ seq: UInt64) -> ActionEvent {
            ActionEvent(feed: feed, seq: seq, body: Array("{\"n\":\(seq)}".utf8))
        }
        var commit = StoreCommit()
        commit.eventRetention = 3
        commit.events = (1...5).map { event("f", $0) } + [event("g", 1)]
        try store.commit(commit)
        store.close()
        let events = try reloaded(place).events
        #expect(events.filter { $0.feed == "f" } == [event("f", 3), event("f", 4), event("f", 5)])
        #expect(events.filter { $0.feed == "g" } == [event("g", 1)])
    }

    @Test(
        "the feeds of some partitions are exactly those whose names hash into them, whole",
        arguments: StoreKind.allCases)
    func feedsByPartition(kind: StoreKind) throws {
        let place = try kind.makePlace()
        let store = try place.open()
        _ = try store.load()
        let names = (0..<40).map { "feed-\($0)" }
        var all = StoreCommit()
        all.feeds = names.map {
            changes(
                $0, seq: 1, nextArrival: 2, items: [("i", storedItem("i", arrival: 1, json: "{\"feed\":\"\($0)\"}"))])
        }
        try store.commit(all)
        let wanted: Set<Partition> = [
            Partition(feed: "feed-3"), Partition(feed: "feed-17"), Partition(feed: "feed-31"),
        ]
        let expected = names.filter { wanted.contains(Partition(feed: $0)) }.sorted()
        let feeds = try store.feeds(inPartitions: wanted)
        #expect(feeds.map(\.name) == expected)
        #expect(feeds.allSatisfy { $0.items.map(\.json) == [Array("{\"feed\":\"\($0.name)\"}".utf8)] })
        #expect(try store.feeds(inPartitions: []).isEmpty)
        #expect(try store.feeds(inPartitions: Set(Partition.all)).map(\.name) == names.sorted())
        store.close()
    }

    @Test(
        "loading partitions gives their feeds, events and quarantine, and the whole ledger and renderers",
        arguments: StoreKind.allCases)
    func loadByPartition(kind: StoreKind) throws {
        let place = try kind.makePlace()
        let store = try place.open()
        _ = try store.load()
        let names = (0..<40).map { "feed-\($0)" }
        var all = StoreCommit()
        all.feeds = names.map { changes($0, seq: 1, nextArrival: 2, items: [("i", storedItem("i", arrival: 1))]) }
        all.events = names.map { ActionEvent(feed: $0, seq: 1, body: Array("{\"feed\":\"\($0)\"}".utf8)) }
        all.quarantine.entered = names.enumerated().map { index, name in
            QuarantinedItem(
                feed: name, id: "q", type: "product", code: .pluginCrashed, reason: "killed by signal 11",
                plugin: "product", file: "/p/librowcast-product.so", at: Int64(index))
        }
        all.ledger.recorded = [LedgerEntry(key: LedgerKey(client: "c", req: "1"), order: 1, reply: [0x7B, 0x7D])]
        all.renderers = [RendererRecord(kind: .item, type: "product", identity: "product@1")]
        try store.commit(all)
        store.close()

        let reopened = try place.open()
        defer { reopened.close() }
        let wanted: Set<Partition> = [Partition(feed: "feed-3"), Partition(feed: "feed-17")]
        let expected = names.filter { wanted.contains(Partition(feed: $0)) }
        let state = try reopened.load(partitions: wanted)
        #expect(state.feeds.map(\.name) == expected.sorted())
        #expect(state.events.map(\.feed).sorted() == expected.sorted())
        #expect(state.quarantine.map(\.feed) == expected)
        #expect(state.ledger.map(\.key) == [LedgerKey(client: "c", req: "1")] && state.renderers.count == 1)
        let none = try reopened.load(partitions: [])
        #expect(none.feeds.isEmpty && none.events.isEmpty && none.quarantine.isEmpty && none.ledger.count == 1)
    }

    @Test(
        "logged deltas come back as the history of each feed's current epoch, up to its seq",
        arguments: StoreKind.allCases)
    func history(kind: StoreKind) throws {
        let place = try kind.makePlace()
        let store = try place.open()
        _ = try store.load()
        func delta(_ feed: String, _ seq: UInt64, epoch: String = "e1") -> StoredDelta {
            StoredDelta(feed: feed, epoch: epoch, seq: seq, body: Array("{\"seq\":\(seq)}".utf8))
        }
        var first = commit(changes("f", seq: 2, nextArrival: 1), changes("g", seq: 1, epoch: "e2", nextArrival: 1))
        first.history = [delta("f", 1), delta("f", 2), delta("g", 1, epoch: "old")]
        first.historyRetention = 100
        try store.commit(first)
        var second = commit(changes("f", seq: 3, nextArrival: 1))
        second.history = [delta("f", 3)]
        second.historyRetention = 100
        try store.commit(second)
        store.close()
        let feeds = try reloaded(place).feeds
        let f = try #require(feeds.first { $0.name == "f" })
        #expect(f.history.map(\.seq) == [1, 2, 3])
        #expect(f.history.map(\.body) == [1, 2, 3].map { delta("f", $0).body })
        // A delta of another epoch does not continue the feed's history.
        #expect(try #require(feeds.first { $0.name == "g" }).history.isEmpty)
    }

    @Test("quarantined items are kept and released as committed, oldest first", arguments: StoreKind.allCases)
    func quarantine(kind: StoreKind) throws {
        let place = try kind.makePlace()
        let store = try place.open()
        _ = try store.load()
        func entry(_ id: String, at: Int64) -> QuarantinedItem {
            QuarantinedItem(
                feed: "f", id: id, type: "product", code: .pluginCrashed, reason: "killed by signal 11",
                plugin: "product", file: "/p/librowcast-product.so", at: at)
        }
        var enter = StoreCommit()
        enter.quarantine.entered = [entry("b", at: 20), entry("a", at: 10), entry("c", at: 30)]
        try store.commit(enter)
        var release = StoreCommit()
        release.quarantine.left = [(feed: "f", id: "c")]
        try store.commit(release)
        #expect(try store.quarantinedItems() == [entry("a", at: 10), entry("b", at: 20)])
        store.close()
        #expect(try reloaded(place).quarantine == [entry("a", at: 10), entry("b", at: 20)])
    }

    @Test("an empty commit changes nothing", arguments: StoreKind.allCases)
    func emptyCommit(kind: StoreKind) throws {
        let place = try kind.makePlace()
        let store = try place.open()
        _ = try store.load()
        try store.commit(commit(changes("f", seq: 1, nextArrival: 2, items: [("a", storedItem("a", arrival: 1))])))
        #expect(StoreCommit().isEmpty)
        try store.commit(StoreCommit())
        store.close()
        let state = try reloaded(place)
        #expect(state.feeds.map(\.name) == ["f"] && state.feeds[0].seq == 1)
    }

    @Test(
        "what a store committed is what the engine restarts from: a durable engine's feeds survive a restart",
        arguments: StoreKind.allCases)
    func durableEngineRestart(kind: StoreKind) throws {
        let place = try kind.makePlace()
        let renderer = FakeRenderer(itemTypes: ["product"], headerTypes: ["banner"])
        let harness = EngineHarness(renderer: renderer)
        let durable = DurableEngine(engine: harness.engine, store: try place.open())
        #expect(try durable.start().isEmpty)
        let requests = [
            upsert("f", item("a", section: "s1", sort: 2)), upsert("f", item("b", section: "s1", sort: 1)),
            upsert("f", item("c", section: "s2")), JSONValue.object(["op": "delete", "feed": "f", "id": "b"]),
        ]
        for (token, request) in requests.enumerated() {
            var object = request.objectValue!
            object["client"] = "t"
            object["req"] = .number(Double(token))
            _ = try durable.process([
                IncomingMessage(origin: .control(replyTo: 0), body: JSONValue.object(object).serialized())
            ])
        }
        let before = harness.snapshot("f")
        durable.close()

        let restarted = EngineHarness(renderer: FakeRenderer(itemTypes: ["product"], headerTypes: ["banner"]))
        let again = DurableEngine(engine: restarted.engine, store: try place.open())
        _ = try again.start()
        #expect(restarted.snapshot("f") == before)
        #expect(restarted.engine.ledger.count == harness.engine.ledger.count)
        again.close()
    }
}
