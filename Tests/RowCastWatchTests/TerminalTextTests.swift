import RowCastWatch
import Testing

@Suite("TerminalText")
struct TerminalTextTests {
    @Test("fit pads short text and cuts long text with an ellipsis, to exactly the width")
    func fit() {
        #expect(TerminalText.fit("abc", width: 5) == "abc  ")
        #expect(TerminalText.fit("abcde", width: 5) == "abcde")
        #expect(TerminalText.fit("abcdef", width: 5) == "abcd…")
        #expect(TerminalText.fit("abc", width: 0) == "")
        #expect(TerminalText.fit("abc", width: 1) == "…")
    }

    @Test("wide characters take two columns, combining marks none, control characters become spaces")
    func widths() {
        #expect(TerminalText.width(of: "中文") == 4)
        #expect(TerminalText.width(of: "e\u{301}") == 1)
        #expect(TerminalText.width(of: "🚗") == 2)
        #expect(TerminalText.fit("中文字", width: 5) == "中文…")
        #expect(TerminalText.width(of: TerminalText.fit("中文字", width: 4)) == 4)
        #expect(TerminalText.fit("a\nb\u{1B}c", width: 5) == "a b c")
    }
}
