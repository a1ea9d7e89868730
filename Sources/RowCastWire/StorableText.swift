/// Text that a store keeps in a text column, made safe where it is made: PostgreSQL refuses
/// U+0000 in `text` (the whole commit fails with storage_error) and SQLite's text binding ends
/// a string at its first NUL (the record read back no longer matches its checksum). Texts
/// rowcastd does not choose, such as a plugin host's reasons, go through `replacingNUL`.
public enum StorableText {
    /// `text` with every U+0000 replaced by U+FFFD (the replacement character); `text` itself
    /// when it holds none.
    public static func replacingNUL(_ text: String) -> String {
        guard text.utf8.contains(0) else { return text }
        return text.replacing("\u{0}", with: "\u{FFFD}")
    }
}
