/// A JSON object that keeps its members in input order.
///
/// Lookup is a linear scan from the end, so when a key appears twice the last one wins, as in
/// most JSON parsers. Objects in RowCast are small (an item, a row), where a scan beats hashing.
/// Equality ignores member order and repeated keys: two objects are equal when every key maps
/// to an equal value.
public struct JSONObject: Sendable {
    /// The members in input order; a key may repeat (the last one counts).
    public private(set) var entries: [(key: String, value: JSONValue)]

    /// An empty object.
    public init() { entries = [] }

    /// An object with these members, in this order.
    public init(_ entries: [(key: String, value: JSONValue)]) { self.entries = entries }

    /// How many members the object has (repeated keys counted each time).
    public var count: Int { entries.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { entries.isEmpty }

    /// The keys, first occurrence order, without repeats.
    public var keys: [String] {
        var seen = Set<String>()
        return entries.compactMap { seen.insert($0.key).inserted ? $0.key : nil }
    }

    /// The value of `key`, or `nil` when absent. Setting `nil` removes every member named `key`;
    /// setting a value replaces the last member named `key`, or appends one.
    public subscript(key: String) -> JSONValue? {
        get {
            var index = entries.count
            while index > 0 {
                index -= 1
                if entries[index].key == key { return entries[index].value }
            }
            return nil
        }
        set {
            guard let newValue else {
                entries.removeAll { $0.key == key }
                return
            }
            if let index = entries.lastIndex(where: { $0.key == key }) {
                entries[index].value = newValue
            } else {
                entries.append((key: key, value: newValue))
            }
        }
    }

    /// Makes room for at least `capacity` members, so that appending them does not regrow.
    public mutating func reserveCapacity(_ capacity: Int) {
        entries.reserveCapacity(capacity)
    }

    /// Appends a member without looking for an existing one (the parser's fast path).
    public mutating func append(key: String, value: JSONValue) {
        entries.append((key: key, value: value))
    }
}

extension JSONObject: Equatable {
    /// Objects are equal when they have the same keys mapped to equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        let leftKeys = lhs.keys
        guard leftKeys.count == rhs.keys.count else { return false }
        for key in leftKeys where lhs[key] != rhs[key] { return false }
        return true
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object from a literal, keys in the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        // The literal's array taken over as it is: a tuple with labels has the layout of the
        // same tuple without them, and mapping it into a new array cost an allocation, a copy
        // and a retain of every member (every row a plugin renders is made of such literals;
        // `make bench-guard` counts it in the SDK's render, about a tenth of its instructions).
        self.init(unsafeBitCast(elements, to: [(key: String, value: JSONValue)].self))
    }
}
