import RowCastClient
import RowCastJSON
import Testing

/// Tables that fit the terminal, and numbers with thousands separators.
@Suite struct TextTableWidthTests {
    @Test(
        "whole numbers get a comma every three digits; anything else is left alone",
        arguments: [
            ("0", "0"), ("999", "999"), ("1000", "1,000"), ("1234567", "1,234,567"), ("-1234", "-1,234"),
            ("12.5", "12.5"), ("abc1234", "abc1234"), ("-", "-"), ("", ""),
        ])
    func grouped(_ input: String, _ expected: String) {
        #expect(TextTable.grouped(input) == expected)
    }

    @Test("a table wider than its width narrows its widest column and cuts cells with …")
    func fitsWidth() {
        var table = TextTable(headers: ["ID", "CONTENT"], width: 20)
        table.append(["42", "a very long summary of the row content"])
        let lines = table.render()
        #expect(lines == ["ID  CONTENT", "42  a very long sum…"])
        #expect(lines.allSatisfy { $0.count <= 20 })
    }

    @Test("a table within its width, or without one, is unchanged")
    func narrowTablesUnchanged() {
        var table = TextTable(headers: ["ID", "CONTENT"])
        table.append(["42", "a very long summary of the row content"])
        var wide = table
        wide.width = 200
        #expect(table.render() == wide.render())
        #expect(table.render()[1] == "42  a very long summary of the row content")
    }

    @Test("no column gets narrower than its title, even when the width cannot be met")
    func titlesStay() {
        var table = TextTable(headers: ["FEED", "SEQUENCE"], width: 5)
        table.append(["carsandboats", "123456789"])
        #expect(table.render() == ["FEED  SEQUENCE", "car…  1234567…"])
    }

    @Test("status shows counters and feed numbers with separators, and its tables fit the width")
    func statusNumbers() {
        let reply: JSONValue = [
            "ok": true, "version": "0.1.0", "protocol": 1, "uptime": 5,
            "counters": ["received": 1234567, "applied": 1000],
            "feeds": [
                [
                    "feed": "a-feed-with-a-rather-long-name", "seq": 12345, "epoch": "7d0c5e2a91b3f604", "sections": 1,
                    "rows": 1000, "items": 1000, "pending": 0,
                ]
            ],
        ]
        let lines = DaemonReport.status(reply, width: 60)
        #expect(lines.contains("counters   received=1,234,567  applied=1,000"))
        let table = lines.drop { !$0.hasPrefix("FEED") }
        #expect(table.count == 2)
        #expect(table.allSatisfy { $0.count <= 60 }, "\(table)")
        #expect(table.last?.contains("12,345") == true)
        #expect(table.last?.contains("1,000") == true)
    }
}
