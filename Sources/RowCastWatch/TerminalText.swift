/// Measures and fits text in terminal columns: most characters take one column, East Asian
/// wide characters and emoji take two, combining marks and zero-width characters none.
/// Control characters (a newline inside a row's content, say) are shown as a space, so that
/// nothing a feed sends can move the cursor.
public enum TerminalText {
    /// The columns `character` takes.
    public static func width(of character: Character) -> Int {
        var total = 0
        for scalar in character.unicodeScalars { total = max(total, width(of: scalar)) }
        return total
    }

    /// The columns `text` takes.
    public static func width(of text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    /// `text` in exactly `width` columns: cut with a trailing "…" when longer, padded with
    /// spaces when shorter; control characters become spaces.
    public static func fit(_ text: some StringProtocol, width: Int) -> String {
        guard width > 0 else { return "" }
        var result = ""
        var used = 0
        var index = text.startIndex
        while index < text.endIndex {
            let character = sanitized(text[index])
            let columns = Self.width(of: character)
            let rest = text.index(after: index)
            // Keep one column for the ellipsis unless this is the last character and it fits.
            let limit = rest == text.endIndex ? width : width - 1
            if used + columns > limit {
                result.append("…")
                used += 1
                break
            }
            result.append(character)
            used += columns
            index = rest
        }
        if used < width { result.append(String(repeating: " ", count: width - used)) }
        return result
    }

    /// `character`, or a space when it is a control character.
    static func sanitized(_ character: Character) -> Character {
        guard let scalar = character.unicodeScalars.first else { return " " }
        if scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) { return " " }
        return character
    }

    /// The columns one scalar takes (a simplified `wcwidth`).
    static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value == 0 { return 0 }
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 1 }  // shown as a space
        if value < 0x300 { return 1 }  // Latin, before the first combining marks: no table lookups
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if value == 0x200B { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }
}
