/// Turns the bytes a terminal sends in raw mode into ``Key``s: printable UTF-8 characters,
/// control bytes, and the escape sequences of arrows, Page Up/Down, Home and End (both the
/// `ESC [` and the `ESC O` forms, with or without modifier parameters).
///
/// A pure state machine: bytes may arrive split anywhere, so an incomplete sequence waits for
/// the next ``feed(_:)``. A lone ESC is ambiguous until the input goes quiet: call
/// ``flush()`` when no more bytes are waiting to read it as ``Key/escape``.
public struct KeyDecoder: Sendable {
    /// Bytes of a sequence or character not complete yet.
    private var pending: [UInt8] = []

    /// A decoder with nothing pending.
    public init() {}

    /// Whether bytes of an incomplete key are waiting for more input (or ``flush()``).
    public var hasPending: Bool { !pending.isEmpty }

    /// Decodes `bytes` (after whatever was pending) into the keys they complete.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        var start = 0
        while start < pending.count {
            guard let (key, length) = Self.decode(pending[start...]) else { break }
            keys.append(key)
            start += length
        }
        pending.removeFirst(start)
        return keys
    }

    /// Ends whatever is pending: a lone ESC becomes ``Key/escape``, an ESC followed by an
    /// unfinished sequence becomes ``Key/escape`` and the rest is decoded anew, anything
    /// else incomplete is ``Key/unknown``.
    public mutating func flush() -> [Key] {
        guard !pending.isEmpty else { return [] }
        let rest = pending
        pending = []
        if rest.first == 0x1B {
            return [.escape] + feed(rest.dropFirst()) + flush()
        }
        return [.unknown]
    }

    /// The key at the start of `bytes` and how many bytes it takes, or `nil` when the bytes
    /// may still grow into a longer key.
    static func decode(_ bytes: ArraySlice<UInt8>) -> (Key, Int)? {
        let first = bytes[bytes.startIndex]
        switch first {
        case 0x1B: return decodeEscape(bytes)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x03: return (.interrupt, 1)
        case 0x00..<0x20: return (.unknown, 1)
        default: return decodeCharacter(bytes)
        }
    }

    /// An escape sequence: `ESC [ params final`, `ESC O final`, or ESC followed by another key
    /// (Alt+key: read as ESC, then the key).
    private static func decodeEscape(_ bytes: ArraySlice<UInt8>) -> (Key, Int)? {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let introducer = bytes[start + 1]
        switch introducer {
        case UInt8(ascii: "["):
            // CSI: parameter bytes 0x30–0x3F, intermediates 0x20–0x2F, then a final byte 0x40–0x7E.
            var index = start + 2
            while index < bytes.endIndex, (0x20...0x3F).contains(bytes[index]) { index += 1 }
            guard index < bytes.endIndex else { return nil }
            let final = bytes[index]
            guard (0x40...0x7E).contains(final) else { return (.unknown, index - start + 1) }
            let parameters = String(decoding: bytes[(start + 2)..<index], as: UTF8.self)
            return (csiKey(final: final, parameters: parameters), index - start + 1)
        case UInt8(ascii: "O"):
            guard bytes.count >= 3 else { return nil }
            return (ss3Key(final: bytes[start + 2]), 3)
        default:
            return (.escape, 1)
        }
    }

    /// The key of `CSI parameters final`.
    private static func csiKey(final: UInt8, parameters: String) -> Key {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            // `5;2~` (with a modifier) is still Page Up.
            switch parameters.split(separator: ";").first {
            case "1", "7": return .home
            case "4", "8": return .end
            case "5": return .pageUp
            case "6": return .pageDown
            default: return .unknown
            }
        default: return .unknown
        }
    }

    /// The key of `ESC O final` (application cursor mode).
    private static func ss3Key(final: UInt8) -> Key {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "M"): return .enter
        default: return .unknown
        }
    }

    /// One UTF-8 character (1 to 4 bytes); an invalid lead or continuation byte is one
    /// ``Key/unknown`` byte.
    private static func decodeCharacter(_ bytes: ArraySlice<UInt8>) -> (Key, Int)? {
        let start = bytes.startIndex
        let first = bytes[start]
        let length: Int
        switch first {
        case 0x20..<0x7F: return (.character(Character(Unicode.Scalar(first))), 1)
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return (.unknown, 1)
        }
        guard bytes.count >= length else {
            // Wait for the rest, unless what came already cannot continue this character.
            let valid = bytes.dropFirst().allSatisfy { $0 & 0xC0 == 0x80 }
            return valid ? nil : (.unknown, 1)
        }
        let encoded = bytes[start..<(start + length)]
        guard encoded.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }),
            let string = String(validating: encoded, as: UTF8.self), let character = string.first
        else {
            return (.unknown, 1)
        }
        return (.character(character), length)
    }
}
