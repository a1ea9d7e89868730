import RowCastWire
import Testing

/// Texts a store keeps in a text column: U+0000 becomes U+FFFD, everything else stays.
struct StorableTextTests {
    @Test("every U+0000 becomes U+FFFD; a text without one is returned as it is")
    func replacesNUL() {
        #expect(StorableText.replacingNUL("a\u{0}b\u{0}") == "a\u{FFFD}b\u{FFFD}")
        #expect(StorableText.replacingNUL("\u{0}") == "\u{FFFD}")
        #expect(StorableText.replacingNUL("killed by signal 11 (SIGSEGV) é") == "killed by signal 11 (SIGSEGV) é")
        #expect(StorableText.replacingNUL("") == "")
    }
}
