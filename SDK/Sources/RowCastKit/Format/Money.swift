/// Formats amounts of money for row content, without Foundation.
public enum Money {
    /// `symbol` + the amount: an integral amount without a fraction (`$39999`), any other with
    /// two decimals, rounded half away from zero (`$39999.50`); a negative one as `-$5.25`.
    public static func format(_ amount: Double, symbol: String = "$") -> String {
        guard amount.isFinite else { return symbol + "0" }
        let negative = amount < 0
        let magnitude = amount.magnitude
        if magnitude == magnitude.rounded(.towardZero) {
            guard let whole = Int64(exactly: magnitude) else {
                return (negative ? "-" : "") + symbol + JSONValue.number(magnitude).description
            }
            return compose(negative: negative, symbol: symbol, whole: UInt64(whole), cents: nil)
        }
        // Whole part and fraction separately: `magnitude - whole` is exact, so cents are right
        // however large the amount (a double at or above 2^52 has no fraction below .5).
        guard magnitude < 9.2e18 else {
            return (negative ? "-" : "") + symbol + JSONValue.number(magnitude).description
        }
        var whole = Int64(magnitude.rounded(.towardZero))
        var cents = Int64(((magnitude - Double(whole)) * 100).rounded(.toNearestOrAwayFromZero))
        if cents == 100 {
            whole += 1
            cents = 0
        }
        return compose(negative: negative, symbol: symbol, whole: UInt64(whole), cents: UInt64(cents))
    }

    /// `-` when `negative`, `symbol`, the digits of `whole`, then `.` and two digits of `cents`
    /// when given: written into one string of the exact length (joining the pieces with `+`
    /// made a string per piece and cost three times as much per row).
    private static func compose(negative: Bool, symbol: String, whole: UInt64, cents: UInt64?) -> String {
        var digitCount = 1
        var rest = whole / 10
        while rest > 0 {
            digitCount += 1
            rest /= 10
        }
        let symbolCount = symbol.utf8.count
        let count = (negative ? 1 : 0) + symbolCount + digitCount + (cents == nil ? 0 : 3)
        // The exact count, so a result of up to 15 bytes is a small string, as before.
        return String(unsafeUninitializedCapacity: count) { buffer in
            var offset = 0
            if negative {
                buffer[0] = UInt8(ascii: "-")
                offset = 1
            }
            for byte in symbol.utf8 {
                buffer[offset] = byte
                offset += 1
            }
            offset += digitCount
            var digits = whole
            var end = offset
            repeat {
                end -= 1
                buffer[end] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: digits % 10)
                digits /= 10
            } while digits > 0
            if let cents {
                buffer[offset] = UInt8(ascii: ".")
                buffer[offset + 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: cents / 10)
                buffer[offset + 2] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: cents % 10)
                offset += 3
            }
            return offset
        }
    }
}
