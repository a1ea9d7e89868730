@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import Testing

/// Cell names are shared between rows and found from the output's bytes: the same name gives
/// the same string whether it comes as bytes or as a string, different names stay different,
/// and past the byte-compared names the hashed ones still answer.
@Suite("CellNames")
struct CellNamesTests {
    private static func name(_ text: String, in cells: inout CellNames) -> String {
        Array(text.utf8).withUnsafeBytes { cells.name($0) }
    }

    @Test("a name seen before is the same string, from bytes or from a string; others differ")
    func sharesNames() {
        var cells = CellNames()
        let first = Self.name("ProductImageCell", in: &cells)
        #expect(first == "ProductImageCell")
        #expect(Self.name("ProductImageCell", in: &cells) == first)
        #expect(cells.name("ProductImageCell") == first)
        #expect(Self.name("ProductImageCelL", in: &cells) == "ProductImageCelL")
        #expect(Self.name("ProductImageCell2", in: &cells) == "ProductImageCell2")
        #expect(Self.name("Banner", in: &cells) == "Banner")
        #expect(Self.name("", in: &cells) == "")
        #expect(Self.name("é中😀Cell", in: &cells) == "é中😀Cell")
        #expect(Self.name("ProductImageCell", in: &cells) == "ProductImageCell")
    }

    @Test("more names than are compared byte for byte are still told apart and found again")
    func manyNames() {
        var cells = CellNames()
        let names = (0..<(CellNames.recentLimit * 3)).map { "GeneratedCellNumber\($0)" }
        for round in 0..<2 {
            for name in names {
                #expect(Self.name(name, in: &cells) == name, "round \(round)")
                #expect(cells.name(name) == name, "round \(round)")
            }
        }
    }
}
