import RowCastCells
import RowCastKit
import Testing

/// Dates and counts as declarative cells write them.
@Suite struct CellFormattingTests {
    @Test func rfc3339DatesParse() {
        #expect(CellDate.parse("1970-01-01") == 0)
        #expect(CellDate.parse("2026-11-22T10:00:00Z") == 1_795_341_600)
        #expect(CellDate.parse("2026-11-22T11:00:00+01:00") == 1_795_341_600)
        #expect(CellDate.parse("2026-11-22 10:00Z") == 1_795_341_600)
        #expect(CellDate.parse("2026-11-22T10:00:00.5Z") == 1_795_341_600.5)
        #expect(CellDate.parse("2024-02-29") != nil)
        for bad in [
            "2026-02-29", "2026-13-01", "2026-11-22T25:00Z", "22/11/2026", "2026-11-22T10:00:00Zjunk", "",
            "2026-11-22T10:00:00.",
        ] {
            #expect(CellDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func absoluteAndRelativeForms() {
        let noon = 1_795_341_600.0 + 2 * 3600
        #expect(CellDate.absolute(noon) == "Nov 22, 2026")
        #expect(CellDate.absoluteWithTime(noon) == "Nov 22, 2026, 12:00 UTC")
        #expect(CellDate.absolute(-86_400) == "Dec 31, 1969")
        #expect(CellDate.relative(noon - 30, now: noon) == "just now")
        #expect(CellDate.relative(noon - 300, now: noon) == "5 min ago")
        #expect(CellDate.relative(noon - 3 * 3600, now: noon) == "3 h ago")
        #expect(CellDate.relative(noon - 30 * 3600, now: noon) == "yesterday")
        #expect(CellDate.relative(noon - 4 * 86_400, now: noon) == "4 days ago")
        #expect(CellDate.relative(noon + 2 * 86_400, now: noon) == "in 2 days")
        #expect(CellDate.relative(noon - 30 * 86_400, now: noon) == "Oct 23, 2026")
    }

    @Test func counts() {
        #expect(CellCount.format(0) == "0")
        #expect(CellCount.format(999) == "999")
        #expect(CellCount.format(1000) == "1K")
        #expect(CellCount.format(1999) == "1.9K")
        #expect(CellCount.format(12_345) == "12K")
        #expect(CellCount.format(1_250_000) == "1.2M")
        #expect(CellCount.format(3_400_000_000) == "3.4B")
        #expect(CellCount.format(-1500) == "-1.5K")
        // Beyond Int: written as JSON writes the number, not a crash.
        #expect(CellCount.format(1e300).hasSuffix("T"))
        #expect(CellCount.format(-1e40).hasPrefix("-"))
    }

    @Test func datesOutsideYearsOneTo9999AreRefused() throws {
        #expect(CellFieldType.date.problem(with: .number(0)) == nil)
        #expect(CellFieldType.date.problem(with: .number(253_402_300_799)) == nil)
        #expect(CellFieldType.date.problem(with: .number(-62_135_596_800)) == nil)
        #expect(CellFieldType.date.problem(with: .number(253_402_300_800))?.contains("from year 1 to 9999") == true)
        #expect(CellFieldType.date.problem(with: .number(-62_135_596_801)) != nil)
    }

    /// The input `rowcast-fuzz cells` found (2026-11-23): a date of -8.6e73 seconds crashed the
    /// `date` transform (a day count beyond `Int`), in rowcastd itself.
    @Test func fuzzFoundDateTooFarInThePastIsAFieldError() throws {
        var catalog = CellCatalog()
        catalog.add(
            text: """
                cells:
                  - types: [t]
                    cell: C
                    height: 10
                    fields: {s: string, d: date?}
                    content:
                      formatted: "{{date(d)}} {{datetime(d)}} {{relative_date(d)}}"
                """, file: "regression.yaml")
        let definition = try #require(catalog.definitions.first, "\(catalog.refusals)")
        let item = try Item(
            json: JSONParser.parse(
                Array(
                    #"{"id":"b","type":"t","data":{"s":"","d":-86444441111111111111111111111111111111111111111111111111111111111111114400.5}}"#
                        .utf8)))
        #expect(throws: (any Error).self) {
            _ = try definition.rowBytes(
                fields: item.data, id: item.id, type: item.type, section: item.section, now: 1_795_400_000)
        }
        do {
            _ = try definition.row(
                fields: item.data, id: item.id, type: item.type, section: item.section, now: 1_795_400_000)
            Issue.record("the item was accepted")
        } catch {
            #expect("\(error)".contains("from year 1 to 9999"), "\(error)")
        }
    }
}
