import RowCastJSON
import Testing

/// The ordered JSON object: lookup, mutation and equality.
@Suite("JSONObject")
struct JSONObjectTests {
    @Test("lookup finds the last member with a key")
    func lookup() {
        let object = JSONObject([(key: "a", value: 1), (key: "b", value: 2), (key: "a", value: 3)])
        #expect(object["a"] == 3)
        #expect(object["b"] == 2)
        #expect(object["c"] == nil)
        #expect(object.keys == ["a", "b"])
        #expect(object.count == 3)
        #expect(!object.isEmpty)
        #expect(JSONObject().isEmpty)
    }

    @Test("setting replaces the last member or appends; nil removes every member with the key")
    func mutation() {
        var object: JSONObject = ["a": 1, "b": 2]
        object["a"] = 10
        object["c"] = 3
        #expect(JSONValue.object(object).description == #"{"a":10,"b":2,"c":3}"#)
        object.append(key: "b", value: 20)
        #expect(object["b"] == 20)
        object["b"] = nil
        #expect(object["b"] == nil)
        #expect(JSONValue.object(object).description == #"{"a":10,"c":3}"#)
    }

    @Test("equality ignores member order and repeated keys")
    func equality() {
        let left: JSONObject = ["a": 1, "b": 2]
        let right: JSONObject = ["b": 2, "a": 1]
        #expect(left == right)
        #expect(JSONObject([(key: "a", value: 0), (key: "a", value: 1), (key: "b", value: 2)]) == left)
        #expect(left != ["a": 1])
        #expect(left != ["a": 1, "b": 3])
        #expect(left != ["a": 1, "c": 2])
    }

    @Test("JSONValue accessors return nil for other kinds")
    func valueAccessors() {
        let value: JSONValue = ["s": "x", "n": 1.5, "b": true, "a": [1], "o": [:], "z": nil]
        #expect(value["s"]?.stringValue == "x")
        #expect(value["n"]?.numberValue == 1.5)
        #expect(value["b"]?.boolValue == true)
        #expect(value["a"]?.arrayValue == [1])
        #expect(value["o"]?.objectValue == JSONObject())
        #expect(value["z"]?.isNull == true)
        #expect(value["s"]?.numberValue == nil)
        #expect(value["n"]?.stringValue == nil)
        #expect(JSONValue.string("x")["key"] == nil)
        #expect(
            [JSONValue.null, true, 1, "s", [], [:]].map(\.kindName) == [
                "null", "boolean", "number", "string", "array", "object",
            ])
    }
}
