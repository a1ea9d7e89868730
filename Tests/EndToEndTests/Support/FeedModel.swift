import RowCastJSON
import RowCastTesting

/// What one feed must hold after a sequence of requests, by the rules of docs/PROTOCOL.md, and
/// which answer (ok or an error code) each request must get. Rows of `product` items.
struct FeedModel {
    /// Item id → (section, name).
    private(set) var items: [String: (section: String, name: String)] = [:]
    /// Declared section ids.
    private(set) var declared: Set<String> = []

    /// Applies `request`; returns the expected error code, or nil for ok.
    mutating func apply(_ request: JSONValue) -> String? {
        switch request["op"]?.stringValue {
        case "upsert":
            let item = request["item"]!
            items[item["id"]!.stringValue!] = (
                item["section"]?.stringValue ?? "default", item["data"]!["name"]!.stringValue!
            )
            return nil
        case "delete":
            return items.removeValue(forKey: request["id"]!.stringValue!) == nil ? "not_found" : nil
        case "section":
            declared.insert(request["section"]!["id"]!.stringValue!)
            return nil
        case "delete_section":
            let id = request["id"]!.stringValue!
            let members = items.filter { $0.value.section == id }.map(\.key)
            guard declared.contains(id) || !members.isEmpty else { return "not_found" }
            declared.remove(id)
            for member in members { items[member] = nil }
            return nil
        case "reset":
            items = [:]
            declared = []
            for item in request["items"]!.arrayValue! {
                items[item["id"]!.stringValue!] = (
                    item["section"]?.stringValue ?? "default", item["data"]!["name"]!.stringValue!
                )
            }
            return nil
        default:
            return "unexpected op"
        }
    }

    /// Differences between this model and a snapshot reply (empty when they agree): every item
    /// exactly once, in its section, with its last name; every declared section present.
    func differences(from snapshot: JSONValue) -> [String] {
        var problems: [String] = []
        var seen: [String: Int] = [:]
        var sections: Set<String> = []
        for section in snapshot["sections"]?.arrayValue ?? [] {
            let sectionID = section["id"]?.stringValue ?? "?"
            sections.insert(sectionID)
            for row in section["rows"]?.arrayValue ?? [] {
                let id = row["id"]?.stringValue ?? "?"
                seen[id, default: 0] += 1
                guard let expected = items[id] else {
                    problems.append("row \(id) is in the snapshot but was deleted")
                    continue
                }
                if expected.section != sectionID {
                    problems.append("row \(id) is in section \(sectionID), expected \(expected.section)")
                }
                if row["content"]?["title"]?.stringValue != expected.name {
                    problems.append(
                        "row \(id) shows \(row["content"]?["title"]?.stringValue ?? "nothing"), expected \(expected.name)"
                    )
                }
            }
        }
        for (id, count) in seen where count > 1 { problems.append("row \(id) appears \(count) times") }
        for id in items.keys where seen[id] == nil { problems.append("item \(id) is missing") }
        for id in declared where !sections.contains(id) { problems.append("declared section \(id) is missing") }
        return problems
    }
}

/// A reproducible stream of requests on one feed: upserts mostly, with deletes, section
/// declarations and deletions, and now and then a reset.
struct RequestGenerator {
    let feed: String
    var random: SplitMix64
    private var count = 0

    init(feed: String, seed: UInt64) {
        self.feed = feed
        random = SplitMix64(state: seed)
    }

    mutating func next() -> JSONValue {
        count += 1
        let id = "i\(Int.random(in: 0..<300, using: &random))"
        let section = "s\(Int.random(in: 0..<5, using: &random))"
        switch Int.random(in: 0..<1000, using: &random) {
        case 0..<780:
            return ["op": "upsert", "feed": .string(feed), "item": item(id, section: section)]
        case 780..<920:
            return ["op": "delete", "feed": .string(feed), "id": .string(id)]
        case 920..<960:
            return [
                "op": "section", "feed": .string(feed),
                "section": ["id": .string(section), "order": .number(Double(Int.random(in: 0..<5, using: &random)))],
            ]
        case 960..<990:
            return ["op": "delete_section", "feed": .string(feed), "id": .string(section)]
        default:
            let items = (0..<Int.random(in: 0..<40, using: &random)).map { _ in
                item(
                    "i\(Int.random(in: 0..<300, using: &random))", section: "s\(Int.random(in: 0..<5, using: &random))")
            }
            var unique: [String: JSONValue] = [:]
            var order: [String] = []
            for item in items {
                let id = item["id"]!.stringValue!
                if unique.updateValue(item, forKey: id) == nil { order.append(id) }
            }
            return ["op": "reset", "feed": .string(feed), "items": .array(order.map { unique[$0]! })]
        }
    }

    private func item(_ id: String, section: String) -> JSONValue {
        [
            "id": .string(id), "type": "product", "section": .string(section),
            "data": [
                "name": .string("v\(count)"), "operatedBy": "crash test", "price": .number(Double(count)),
                "image": "https://img/x.png",
            ],
        ]
    }
}

extension JSONValue {
    /// The number as an Int, when it is one.
    var intValue: Int? {
        guard let number = numberValue, number == number.rounded() else { return nil }
        return Int(number)
    }
}
