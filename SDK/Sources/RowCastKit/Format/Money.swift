/// Formats amounts of money for row content, without Foundation.
public enum Money {
    /// `symbol` + the amount: an integral amount without a fraction (`$39999`), any other with
    /// two decimals, rounded half away from zero (`$39999.50`); a negative one as `-$5.25`.
    public static func format(_ amount: Double, symbol: String = "$") -> String {
        guard amount.isFinite else { return symbol + "0" }
        let sign = amount < 0 ? "-" : ""
        let magnitude = amount.magnitude
        if magnitude == magnitude.rounded(.towardZero) {
            guard let whole = Int64(exactly: magnitude) else {
                return sign + symbol + JSONValue.number(magnitude).description
            }
            return sign + symbol + String(whole)
        }
        // Whole part and fraction separately: `magnitude - whole` is exact, so cents are right
        // however large the amount (a double at or above 2^52 has no fraction below .5).
        guard magnitude < 9.2e18 else { return sign + symbol + JSONValue.number(magnitude).description }
        var whole = Int64(magnitude.rounded(.towardZero))
        var cents = Int64(((magnitude - Double(whole)) * 100).rounded(.toNearestOrAwayFromZero))
        if cents == 100 {
            whole += 1
            cents = 0
        }
        return sign + symbol + String(whole) + "." + (cents < 10 ? "0" : "") + String(cents)
    }
}
