import RowCastJSON
import Testing

/// `snapshot` with `limit`, from `offset` or `around` an item: the window's rows are exactly
/// that range of the whole snapshot's rows, counted over every section in order, and bad
/// windows are refused naming the field.
@Suite("Snapshot windows")
struct SnapshotWindowTests {
    /// A feed of sections a (7 rows), empty (no rows), b (5 rows) and c (9 rows).
    static func harness() -> EngineHarness {
        let harness = EngineHarness()
        var requests: [JSONValue] = []
        for (order, name) in ["a", "empty", "b", "c"].enumerated() {
            requests.append([
                "op": "section", "feed": "w", "section": ["id": .string(name), "order": .number(Double(order))],
            ])
        }
        for (name, count) in [("a", 7), ("b", 5), ("c", 9)] {
            for index in 0..<count {
                requests.append(upsert("w", item("\(name)\(index)", section: name, sort: Double(index))))
            }
        }
        _ = harness.control(requests)
        return harness
    }

    /// `(section id, row id)` of every row of a snapshot reply, in order.
    static func rows(_ reply: JSONValue) -> [String] {
        (reply["sections"]?.arrayValue ?? []).flatMap { section in
            (section["rows"]?.arrayValue ?? []).map { row in
                "\(section["id"]?.stringValue ?? "?")/\(row["id"]?.stringValue ?? "?")"
            }
        }
    }

    /// The section ids of a snapshot reply.
    static func sections(_ reply: JSONValue) -> [String] {
        (reply["sections"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }

    @Test("every offset and limit gives that slice of the whole snapshot's rows, with its place in the window member")
    func offsetWindowsAreSlices() {
        let harness = Self.harness()
        let whole = Self.rows(harness.snapshot("w"))
        #expect(whole.count == 21)
        for offset in [0, 1, 6, 7, 11, 12, 20, 21, 30] {
            for limit in [1, 2, 5, 12, 40] {
                let reply = harness.control([
                    "op": "snapshot", "feed": "w", "offset": .number(Double(offset)), "limit": .number(Double(limit)),
                ]).replies[0]
                let expected = Array(whole[min(offset, whole.count)..<min(offset + limit, whole.count)])
                #expect(Self.rows(reply) == expected, "offset \(offset) limit \(limit)")
                #expect(reply["window"]?["offset"]?.numberValue == Double(offset))
                #expect(reply["window"]?["rows"]?.numberValue == Double(expected.count))
                #expect(reply["window"]?["total"]?.numberValue == 21)
                #expect(reply["seq"] == harness.snapshot("w")["seq"])
            }
        }
    }

    @Test("an empty section inside the window is shown; one outside it is not")
    func emptySectionsInsideTheWindow() {
        let harness = Self.harness()
        let across = harness.control(["op": "snapshot", "feed": "w", "offset": 5, "limit": 4]).replies[0]
        #expect(Self.sections(across) == ["a", "empty", "b"])
        let after = harness.control(["op": "snapshot", "feed": "w", "offset": 8, "limit": 2]).replies[0]
        #expect(Self.sections(after) == ["b"])
    }

    @Test("around an item centres the window on its row, as far as the feed's ends allow")
    func aroundCentresTheWindow() {
        let harness = Self.harness()
        let whole = Self.rows(harness.snapshot("w"))
        for (id, limit, offset) in [("b2", 5, 7), ("a0", 5, 0), ("c8", 5, 16), ("a1", 40, 0), ("b0", 1, 7)] {
            let reply = harness.control([
                "op": "snapshot", "feed": "w", "around": .string(id), "limit": .number(Double(limit)),
            ]).replies[0]
            #expect(reply["window"]?["offset"]?.numberValue == Double(offset), "\(id) \(limit): \(reply)")
            #expect(Self.rows(reply) == Array(whole[offset..<min(offset + limit, whole.count)]), "\(id) \(limit)")
        }
        let missing = harness.control(["op": "snapshot", "feed": "w", "around": "nope", "limit": 5]).replies[0]
        #expect(missing["error"]?["code"] == "not_found")
        #expect(missing["error"]?["field"] == "around")
    }

    @Test(
        "bad windows are refused naming the field",
        arguments: [
            (#"{"op":"snapshot","feed":"w","offset":3}"#, "missing_field", "limit"),
            (#"{"op":"snapshot","feed":"w","around":"a1"}"#, "missing_field", "limit"),
            (#"{"op":"snapshot","feed":"w","limit":0}"#, "invalid_field", "limit"),
            (#"{"op":"snapshot","feed":"w","limit":10001}"#, "invalid_field", "limit"),
            (#"{"op":"snapshot","feed":"w","limit":2.5}"#, "invalid_field", "limit"),
            (#"{"op":"snapshot","feed":"w","offset":-1,"limit":2}"#, "invalid_field", "offset"),
            (#"{"op":"snapshot","feed":"w","offset":1,"around":"a1","limit":2}"#, "invalid_field", "around"),
            (#"{"op":"snapshot","feed":"w","around":7,"limit":2}"#, "invalid_field", "around"),
        ])
    func badWindowsAreRefused(body: String, code: String, field: String) throws {
        let harness = Self.harness()
        let reply = harness.control(try JSONParser.parse(Array(body.utf8))).replies[0]
        #expect(reply["error"]?["code"]?.stringValue == code, "\(reply)")
        #expect(reply["error"]?["field"]?.stringValue == field, "\(reply)")
    }

    @Test("a window of a feed that does not exist is empty, at seq 0")
    func windowOfAMissingFeed() {
        let reply = EngineHarness().control(["op": "snapshot", "feed": "none", "offset": 0, "limit": 5]).replies[0]
        #expect(reply["ok"] == true)
        #expect(Self.rows(reply).isEmpty)
        #expect(reply["window"]?["total"]?.numberValue == 0)
    }
}
