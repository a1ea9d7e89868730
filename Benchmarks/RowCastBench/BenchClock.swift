/// Timing helpers for the benchmark: monotonic clock, medians over repeated runs.
enum BenchClock {
    /// Seconds taken by `body`.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The median of `runs` timings of `body` (seconds); `setup` runs untimed before each.
    static func median(runs: Int, setup: () -> Void = {}, _ body: () throws -> Void) rethrows -> Double {
        var samples: [Double] = []
        for _ in 0..<runs {
            setup()
            samples.append(try seconds(body))
        }
        samples.sort()
        return samples[samples.count / 2]
    }
}

/// Formats a duration the way the table shows it.
func formatDuration(_ seconds: Double) -> String {
    if seconds >= 1 { return String(format3(seconds)) + " s" }
    if seconds >= 1e-3 { return format3(seconds * 1e3) + " ms" }
    return format3(seconds * 1e6) + " µs"
}

/// Three significant digits, without Foundation.
func format3(_ value: Double) -> String {
    let digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
    var scaled = (value * pow10(digits)).rounded() / pow10(digits)
    if digits == 0 { return String(Int(scaled)) }
    scaled = (scaled * pow10(digits)).rounded()
    let whole = Int(scaled) / Int(pow10(digits))
    let fraction = Int(scaled) % Int(pow10(digits))
    let padded = String(fraction)
    return "\(whole)." + String(repeating: "0", count: digits - padded.count) + padded
}

private func pow10(_ n: Int) -> Double { n == 0 ? 1 : n == 1 ? 10 : 100 }
