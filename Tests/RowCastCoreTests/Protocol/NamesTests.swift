import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import Testing

/// The naming rules of docs/PROTOCOL.md, on small strings (stored inline) and long ones
/// (stored on the heap), with the byte that breaks a rule at every place.
@Suite("Names")
struct NamesTests {
    @Test("ids: 1 to 256 bytes, anything but U+0000, wherever it stands")
    func ids() {
        #expect(!Names.isValidID(""))
        #expect(Names.isValidID(String(repeating: "x", count: 256)))
        #expect(!Names.isValidID(String(repeating: "x", count: 257)))
        #expect(Names.isValidID("é 中 😀 \u{1} \u{7F}"))
        for length in [1, 5, 15, 16, 40] {
            let plain = String(repeating: "a", count: length)
            #expect(Names.isValidID(plain))
            #expect(Names.isValidClient(plain))
            for offset in 0...length {
                var broken = plain
                broken.insert("\u{0}", at: broken.index(broken.startIndex, offsetBy: offset))
                #expect(!Names.isValidID(broken), "NUL at \(offset) of \(length + 1)")
                #expect(!Names.isValidClient(broken), "NUL at \(offset) of \(length + 1)")
            }
        }
        #expect(Names.isValidClient(""))
    }

    @Test("feeds and types: 1 to 128 and 1 to 64 bytes of A-Z a-z 0-9 . _ -")
    func tokens() {
        #expect(Names.isValidFeed("cars.v2_EU-1"))
        #expect(Names.isValidType("product"))
        #expect(!Names.isValidFeed(""))
        #expect(Names.isValidFeed(String(repeating: "f", count: 128)))
        #expect(!Names.isValidFeed(String(repeating: "f", count: 129)))
        #expect(Names.isValidType(String(repeating: "t", count: 64)))
        #expect(!Names.isValidType(String(repeating: "t", count: 65)))
        for length in [1, 15, 30] {
            for bad in [" ", "/", "é", "\u{0}", ":", "*"] {
                for offset in [0, length / 2, length] {
                    var name = String(repeating: "n", count: length)
                    name.insert(contentsOf: bad, at: name.index(name.startIndex, offsetBy: offset))
                    #expect(!Names.isValidFeed(name), "\(bad.unicodeScalars.first!.value) at \(offset)")
                    #expect(!Names.isValidType(name), "\(bad.unicodeScalars.first!.value) at \(offset)")
                }
            }
        }
    }
}
