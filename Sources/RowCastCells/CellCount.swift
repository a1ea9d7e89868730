import RowCastJSON

/// Short counts for row content, as feeds show likes and views: `999`, `1.2K`, `12K`,
/// `1.2M`, `3.4B`.
public enum CellCount {
    /// The short form of `value` (rounded down, so `1999` is `1.9K`, never an overstated `2K`).
    public static func format(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let sign = value < 0 ? "-" : ""
        let magnitude = value.magnitude.rounded(.down)
        let units: [(Double, String)] = [(1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")]
        for (size, suffix) in units where magnitude >= size {
            let scaled = magnitude / size
            // Beyond Int (1e31 and up), the number as JSON writes it: `1e+300T`.
            if scaled >= 10 {
                return sign
                    + (scaled < 9e18 ? String(Int(scaled)) : JSONValue.number(scaled.rounded(.down)).description)
                    + suffix
            }
            let tenths = Int((scaled * 10).rounded(.down))
            return sign + String(tenths / 10) + (tenths % 10 == 0 ? "" : "." + String(tenths % 10)) + suffix
        }
        return sign + String(Int(magnitude))
    }
}
