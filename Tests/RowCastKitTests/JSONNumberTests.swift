import RowCastJSON
import Testing

/// Numbers keep the text they were written with through a parse and a write.
struct JSONNumberTests {
    func roundTrip(_ text: String) throws -> String {
        String(decoding: try JSONParser.parse(text).serialized(), as: UTF8.self)
    }

    @Test(
        "a parsed number is written back exactly as it came",
        arguments: [
            "123456789012345678", "123456789012345679", "-0", "0", "-7", "1.50", "1e0", "1E+2", "-0.0",
            "12345678901234567890123456789012345678901234567890", "0.1", "5e-324", "1e-400", "999999999999999",
        ])
    func exactText(text: String) throws {
        #expect(try roundTrip(text) == text)
        #expect(try roundTrip(#"{"h":[\#(text),{"n":\#(text)}]}"#) == #"{"h":[\#(text),{"n":\#(text)}]}"#)
    }

    @Test("reading a number as a Double still works, and equality stays numeric")
    func readsAsDouble() throws {
        let value = try JSONParser.parse("123456789012345678")
        #expect(value.numberValue == 123_456_789_012_345_678)
        #expect(value == .number(123_456_789_012_345_679))  // the same Double
        #expect(try JSONParser.parse("1e0") == 1)
        #expect(try JSONParser.parse("-0").numberValue?.sign == .minus)
        guard case .number(let number) = try JSONParser.parse("-0") else {
            Issue.record("not a number")
            return
        }
        #expect(number.text == "-0")
        #expect(number.double == 0)
        #expect(number.isIntegerText)
        #expect(JSONNumber(text: "1.0")?.isIntegerText == false)
    }

    @Test("numbers made from a Double print as before")
    func fromDouble() {
        #expect(JSONValue.number(3).description == "3")
        #expect(JSONValue.number(-0.0).description == "0")
        #expect(JSONValue.number(2.5).description == "2.5")
        #expect(JSONNumber(7).text == "7")
    }

    @Test("JSONNumber(text:) takes exactly one JSON number")
    func fromText() {
        #expect(JSONNumber(text: "123456789012345678")?.text == "123456789012345678")
        #expect(JSONNumber(text: " 1") == nil)
        #expect(JSONNumber(text: "01") == nil)
        #expect(JSONNumber(text: "1e999") == nil)
        #expect(JSONNumber(text: "\"1\"") == nil)
    }
}
