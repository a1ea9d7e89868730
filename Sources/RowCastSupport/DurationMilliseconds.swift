extension Duration {
    /// The duration in whole milliseconds (rounded toward zero).
    package var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
