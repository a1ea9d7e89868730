import RowCastClient
import RowCastEngine
import RowCastJSON
import RowCastTesting
import Testing
@testable import RowCastGateway

/// Windows over random feeds changed at random: after every delta and every move, a client
/// that applied the window's messages (and only those) holds exactly the same range of the
/// feed's snapshot; a delta that leaves the window's rows alone sends nothing, or a position.
@Suite struct FeedWindowTests {
    /// A feed as the test changes it: sections, each with a header value and rows (id, cell,
    /// content value).
    struct Model {
        var sections: [(id: String, header: Int, rows: [(id: String, cell: String, content: Int)])] = []
        var nextRow = 0

        /// The engine's snapshot of it.
        var snapshot: FeedSnapshot {
            FeedSnapshot(
                sections: sections.map { section in
                    FeedSnapshot.Section(
                        id: section.id, bytes: Self.sectionJSON(section.id, section.header).serialized(),
                        rows: section.rows.map { row in
                            FeedSnapshot.Row(
                                id: row.id, cell: row.cell,
                                bytes: Self.rowJSON(row.id, row.cell, row.content).serialized())
                        })
                })
        }

        /// The snapshot reply of it at `seq`.
        func reply(seq: Int) -> JSONValue {
            let sectionValues: [JSONValue] = sections.map { section in
                guard case .object(var object) = Self.sectionJSON(section.id, section.header) else { return nil }
                object.append(key: "rows", value: .array(section.rows.map { Self.rowJSON($0.id, $0.cell, $0.content) }))
                return .object(object)
            }
            return ["feed": "f", "seq": .number(Double(seq)), "epoch": "e", "sections": .array(sectionValues)]
        }

        static func sectionJSON(_ id: String, _ header: Int) -> JSONValue {
            ["id": .string(id), "order": nil, "type": nil, "header": ["v": .number(Double(header))], "headerRow": nil]
        }

        static func rowJSON(_ id: String, _ cell: String, _ content: Int) -> JSONValue {
            [
                "id": .string(id), "type": "t", "cell": .string(cell), "height": 1,
                "content": ["v": .number(Double(content))],
            ]
        }

        /// A few random changes: rows inserted, deleted, moved, changed; now and then a section
        /// added, dropped, moved or given a new header.
        mutating func change(_ random: inout SplitMix64) {
            if sections.isEmpty || Int.random(in: 0..<12, using: &random) == 0 {
                sections.insert(
                    ("s\(nextRow)", 0, []), at: Int.random(in: 0...sections.count, using: &random))
                nextRow += 1
            }
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let s = Int.random(in: 0..<sections.count, using: &random)
                let count = sections[s].rows.count
                var kind = Int.random(in: 0..<9, using: &random)
                if count == 0, (3...7).contains(kind) { kind = 0 }
                switch kind {
                case 0, 1, 2:
                    sections[s].rows.insert(
                        ("r\(nextRow)", "A", 0), at: Int.random(in: 0...count, using: &random))
                    nextRow += 1
                case 3, 4:
                    sections[s].rows.remove(at: Int.random(in: 0..<count, using: &random))
                case 5:
                    let row = sections[s].rows.remove(at: Int.random(in: 0..<count, using: &random))
                    let t = Int.random(in: 0..<sections.count, using: &random)
                    sections[t].rows.insert(row, at: Int.random(in: 0...sections[t].rows.count, using: &random))
                case 6, 7:
                    let r = Int.random(in: 0..<count, using: &random)
                    sections[s].rows[r].content += 1
                    if Int.random(in: 0..<3, using: &random) == 0 { sections[s].rows[r].cell = "B" }
                case 8:
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: sections[s].header += 1
                    case 1 where sections.count > 1: sections.remove(at: s)
                    case 2:
                        let section = sections.remove(at: s)
                        sections.insert(section, at: Int.random(in: 0...sections.count, using: &random))
                    default: break
                    }
                default: break
                }
            }
        }
    }

    /// What a client holds of a window: the rows with their section ids, and the sections'
    /// objects it was sent.
    struct ClientWindow {
        var offset = 0
        var total = 0
        var seq = 0
        var rows: [(section: String, row: JSONValue)] = []
        var sections: [String: JSONValue] = [:]

        init(window text: String) throws {
            let message = try JSONParser.parse(text)
            #expect(message["event"]?.stringValue == "window")
            offset = message["offset"]!.intValue!
            total = message["total"]!.intValue!
            seq = message["seq"]!.intValue!
            for section in message["sections"]!.arrayValue! { sections[section["id"]!.stringValue!] = section }
            rows = message["rows"]!.arrayValue!.map { ($0["section"]!.stringValue!, $0["row"]!) }
        }

        /// Applies a `window-update` or `window-position` as docs/PROTOCOL.md says.
        mutating func apply(_ text: String) throws {
            let message = try JSONParser.parse(text)
            #expect(message["base"]?.intValue == seq)
            seq = message["seq"]!.intValue!
            offset = message["offset"]!.intValue!
            total = message["total"]!.intValue!
            guard message["event"]?.stringValue == "window-update" else {
                #expect(message["event"]?.stringValue == "window-position")
                return
            }
            for section in message["sections"]!.arrayValue! { sections[section["id"]!.stringValue!] = section }
            let moved = message["moved"]!.arrayValue!
            var taken: [String: JSONValue] = [:]
            let removals =
                message["deleted"]!.arrayValue!.map { ($0["at"]!.intValue!, false) }
                + moved.map { ($0["from"]!.intValue!, true) }
            for (at, isMove) in removals.sorted(by: { $0.0 > $1.0 }) {
                let removed = rows.remove(at: at)
                if isMove { taken[removed.row["id"]!.stringValue!] = removed.row }
            }
            var additions: [(at: Int, section: String, row: JSONValue)] = message["inserted"]!.arrayValue!.map {
                ($0["at"]!.intValue!, $0["section"]!.stringValue!, $0["row"]!)
            }
            additions += moved.map {
                ($0["to"]!.intValue!, $0["section"]!.stringValue!, taken[$0["id"]!.stringValue!]!)
            }
            for addition in additions.sorted(by: { $0.at < $1.at }) {
                rows.insert((addition.section, addition.row), at: addition.at)
            }
            for entry in message["reloaded"]!.arrayValue! {
                let at = entry["at"]!.intValue!
                #expect(rows[at].row["id"] == entry["id"])
                rows[at].row = entry["row"]!
            }
        }
    }

    /// The rows `offset..<offset+limit` of `replica`, with their section ids.
    func slice(_ replica: FeedReplica, offset: Int, limit: Int) -> [(section: String, row: JSONValue)] {
        let all = replica.sections.flatMap { section in section.rows.map { (section.id, $0) } }
        guard offset < all.count else { return [] }
        return Array(all[offset..<min(all.count, offset + limit)])
    }

    /// Expects `client` to hold exactly the range of `replica` it says it holds.
    func expectMatches(
        _ client: ClientWindow, _ replica: FeedReplica, limit: Int, _ note: String
    ) {
        let total = replica.rowCount
        #expect(client.total == total, "\(note)")
        #expect(client.offset >= 0 && client.offset <= max(0, total - limit), "\(note)")
        let expected = slice(replica, offset: client.offset, limit: limit)
        #expect(client.rows.map(\.row) == expected.map(\.1), "\(note)")
        #expect(client.rows.map(\.section) == expected.map(\.0), "\(note)")
        for (sectionID, _) in expected {
            let attributes = replica.sections.first { $0.id == sectionID }!.attributes
            #expect(client.sections[sectionID]?.objectValue == attributes, "\(note): section \(sectionID)")
        }
    }

    @Test("random deltas and moves keep a window equal to its range of the snapshot", arguments: [1, 2, 3, 4])
    func randomChanges(seed: UInt64) throws {
        var random = SplitMix64(state: seed &* 2_654_435_761)
        for round in 0..<25 {
            var model = Model()
            for _ in 0..<8 { model.change(&random) }
            var seq = 1
            var replica = try FeedReplica(snapshot: model.reply(seq: seq))
            var layout = FlatLayout(replica)
            let limit = Int.random(in: 1...12, using: &random)
            let request = WindowRequest(start: .offset(Int.random(in: 0...20, using: &random)), limit: limit)
            var (window, text) = try FeedWindow.open(request, replica: replica, layout: layout)
            var client = try ClientWindow(window: text)
            expectMatches(client, replica, limit: limit, "seed \(seed) round \(round) open")
            for step in 0..<60 {
                let note = "seed \(seed) round \(round) step \(step)"
                if Int.random(in: 0..<6, using: &random) == 0 {
                    let target = WindowRequest(
                        start: .offset(Int.random(in: 0...(replica.rowCount + 2), using: &random)), limit: limit)
                    try client.apply(try window.move(to: target, replica: replica, layout: layout))
                    expectMatches(client, replica, limit: limit, "\(note) move")
                    continue
                }
                let old = model.snapshot
                let before = client.rows.map(\.row)
                model.change(&random)
                seq += 1
                let delta = SnapshotDiff.delta(from: old, to: model.snapshot)
                let body = try JSONParser.parse(DeltaEncoder.encode(delta, feed: "f", epoch: "e", seq: UInt64(seq)))
                try replica.apply(delta: body)
                let newLayout = FlatLayout(replica)
                let changes = WindowChanges(delta: body, old: layout, new: newLayout)
                layout = newLayout
                if let text = window.follow(changes, replica: replica, layout: layout) {
                    try client.apply(text)
                    if try JSONParser.parse(text)["event"]?.stringValue == "window-position" {
                        #expect(client.rows.map(\.row) == before, "\(note): a position changed the rows")
                    }
                } else {
                    // Nothing sent: the window's rows and place are as they were.
                    client.total = replica.rowCount
                }
                expectMatches(client, replica, limit: limit, note)
            }
        }
    }

    /// A feed of `count` rows in one section, at seq 1.
    func feed(rows count: Int) throws -> (Model, FeedReplica) {
        var model = Model()
        model.sections = [("s", 0, (0..<count).map { ("r\($0)", "A", 0) })]
        model.nextRow = count
        return (model, try FeedReplica(snapshot: model.reply(seq: 1)))
    }

    /// Applies `change` to `model` and `replica` as delta 2; the window's message for it.
    func step(
        _ model: inout Model, _ replica: inout FeedReplica, _ window: inout FeedWindow,
        _ change: (inout Model) -> Void
    ) throws -> JSONValue? {
        let old = model.snapshot
        let layout = FlatLayout(replica)
        change(&model)
        let delta = SnapshotDiff.delta(from: old, to: model.snapshot)
        let body = try JSONParser.parse(DeltaEncoder.encode(delta, feed: "f", epoch: "e", seq: UInt64(replica.seq + 1)))
        try replica.apply(delta: body)
        let text = window.follow(
            WindowChanges(delta: body, old: layout, new: FlatLayout(replica)), replica: replica,
            layout: FlatLayout(replica))
        return try text.map { try JSONParser.parse($0) }
    }

    @Test func aRowInsertedAboveTheWindowMovesItsPositionOnly() throws {
        var (model, replica) = try feed(rows: 1000)
        var (window, _) = try FeedWindow.open(
            WindowRequest(start: .offset(500), limit: 50), replica: replica, layout: FlatLayout(replica))
        let message = try step(&model, &replica, &window) { $0.sections[0].rows.insert(("new", "A", 0), at: 0) }
        #expect(message?["event"] == "window-position")
        #expect(message?["offset"]?.intValue == 501)
        #expect(message?["total"]?.intValue == 1001)
        #expect(message?["rows"] == .none)
    }

    @Test func aChangeBelowTheWindowSendsNothing() throws {
        var (model, replica) = try feed(rows: 1000)
        var (window, _) = try FeedWindow.open(
            WindowRequest(start: .offset(500), limit: 50), replica: replica, layout: FlatLayout(replica))
        #expect(try step(&model, &replica, &window) { $0.sections[0].rows[900].content = 7 } == nil)
        #expect(try step(&model, &replica, &window) { $0.sections[0].rows.remove(at: 800) } == nil)
        #expect(try step(&model, &replica, &window) { $0.sections[0].rows.insert(("x", "A", 0), at: 700) } == nil)
    }

    @Test func aRowDeletedInsideTheWindowSlidesTheNextOneIn() throws {
        var (model, replica) = try feed(rows: 1000)
        var (window, _) = try FeedWindow.open(
            WindowRequest(start: .offset(500), limit: 50), replica: replica, layout: FlatLayout(replica))
        let message = try step(&model, &replica, &window) { $0.sections[0].rows.remove(at: 510) }
        #expect(message?["event"] == "window-update")
        #expect(message?["deleted"] == [["id": "r510", "at": 10]])
        #expect(message?["inserted"]?.arrayValue?.map { $0["id"] } == ["r550"])
        #expect(message?["inserted"]?.arrayValue?.first?["at"]?.intValue == 49)
        #expect(message?["offset"]?.intValue == 500)
    }

    @Test func aWindowAtTheTopShowsARowInsertedAtTheTop() throws {
        var (model, replica) = try feed(rows: 100)
        var (window, _) = try FeedWindow.open(
            WindowRequest(start: .offset(0), limit: 10), replica: replica, layout: FlatLayout(replica))
        let message = try step(&model, &replica, &window) { $0.sections[0].rows.insert(("new", "A", 0), at: 0) }
        #expect(message?["inserted"]?.arrayValue?.map { $0["id"] } == ["new"])
        #expect(message?["deleted"] == [["id": "r9", "at": 9]])
        #expect(message?["offset"]?.intValue == 0)
    }

    @Test func aWindowAfterOrAroundAMissingRowIsRefused() throws {
        let (_, replica) = try feed(rows: 10)
        #expect(throws: FeedWindow.Unplaced.self) {
            try FeedWindow.open(
                WindowRequest(start: .after("nope"), limit: 5), replica: replica, layout: FlatLayout(replica))
        }
        let (window, _) = try FeedWindow.open(
            WindowRequest(start: .around("r8"), limit: 4), replica: replica, layout: FlatLayout(replica))
        #expect(window.offset == 6)
        let (after, _) = try FeedWindow.open(
            WindowRequest(start: .after("r2"), limit: 4), replica: replica, layout: FlatLayout(replica))
        #expect(after.offset == 3)
    }

    @Test func windowQueryParametersAreChecked() throws {
        #expect(try WindowRequest.parse(limit: nil, offset: nil, after: nil, around: nil) == nil)
        #expect(
            try WindowRequest.parse(limit: "50", offset: "10", after: nil, around: nil)
                == WindowRequest(start: .offset(10), limit: 50))
        #expect(throws: GatewayError.self) { try WindowRequest.parse(limit: "0", offset: nil, after: nil, around: nil) }
        #expect(throws: GatewayError.self) {
            try WindowRequest.parse(limit: "10001", offset: nil, after: nil, around: nil)
        }
        #expect(throws: GatewayError.self) { try WindowRequest.parse(limit: nil, offset: "3", after: nil, around: nil) }
        #expect(throws: GatewayError.self) { try WindowRequest.parse(limit: "5", offset: "3", after: "x", around: nil) }
        #expect(throws: GatewayError.self) {
            try WindowRequest.parse(limit: "5", offset: "-3", after: nil, around: nil)
        }
        #expect(throws: GatewayError.self) { try WindowRequest.parse(json: ["limit": 5, "from": 3]) }
    }

    @Test func indexRunsCountAndSkip() {
        let runs = IndexRuns([5..<7, 2..<3, 6..<9])
        #expect(runs.runs == [2..<3, 5..<9])
        #expect(runs.count(below: 6) == 2)
        #expect(runs.nonMember(0) == 0)
        #expect(runs.nonMember(2) == 3)
        #expect(runs.nonMember(4) == 9)
        #expect(runs.lastNonMember(below: 9) == 4)
        #expect(runs.lastNonMember(below: 3) == 1)
        #expect(runs.intersects(8..<20) && !runs.intersects(9..<20))
    }
}
