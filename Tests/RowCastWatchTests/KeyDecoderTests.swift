import RowCastWatch
import Testing

@Suite("KeyDecoder")
struct KeyDecoderTests {
    /// Decodes `text` in one piece, then flushes.
    func keys(_ text: String) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.feed(Array(text.utf8)) + decoder.flush()
    }

    @Test("arrows, Page Up/Down, Home and End in every common form")
    func escapeSequences() {
        #expect(keys("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D") == [.up, .down, .right, .left])
        #expect(keys("\u{1B}OA\u{1B}OB\u{1B}OH\u{1B}OF") == [.up, .down, .home, .end])
        #expect(keys("\u{1B}[5~\u{1B}[6~") == [.pageUp, .pageDown])
        #expect(
            keys("\u{1B}[H\u{1B}[F\u{1B}[1~\u{1B}[4~\u{1B}[7~\u{1B}[8~") == [.home, .end, .home, .end, .home, .end])
        #expect(keys("\u{1B}[1;5A\u{1B}[5;2~") == [.up, .pageUp])
        #expect(keys("\u{1B}[2~\u{1B}[Z") == [.unknown, .unknown])
    }

    @Test("printable characters, UTF-8 included, and control bytes")
    func characters() {
        #expect(keys("q/42") == [.character("q"), .character("/"), .character("4"), .character("2")])
        #expect(keys("é中") == [.character("é"), .character("中")])
        #expect(keys("\r\n\u{7F}\u{08}\u{03}\u{01}") == [.enter, .enter, .backspace, .backspace, .interrupt, .unknown])
    }

    @Test("a sequence split across reads waits for its end")
    func splitSequence() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.hasPending)
        #expect(decoder.feed(Array("[".utf8)) == [])
        #expect(decoder.feed(Array("6".utf8)) == [])
        #expect(decoder.feed(Array("~x".utf8)) == [.pageDown, .character("x")])
        #expect(decoder.hasPending == false)
        let euro = Array("€".utf8)
        #expect(decoder.feed(euro.prefix(2)) == [])
        #expect(decoder.feed(euro.suffix(1)) == [.character("€")])
    }

    @Test("a lone ESC is Escape once the input goes quiet; ESC before a key is Escape then the key")
    func loneEscape() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.flush() == [.escape])
        #expect(decoder.flush() == [])
        #expect(keys("\u{1B}q") == [.escape, .character("q")])
        #expect(keys("\u{1B}\u{1B}[A") == [.escape, .up])
        #expect(keys("\u{1B}[") == [.escape, .character("[")])
    }

    @Test("invalid UTF-8 becomes unknown keys and decoding goes on")
    func invalidBytes() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0xFF, 0x80, 0xC3, 0x41]) == [.unknown, .unknown, .unknown, .character("A")])
    }
}
