import NIOCore
@testable import RowCastHTTP
import Testing

/// A flood of limit hits writes one line per interval, and the next line says how many were
/// left out.
@Suite("Log throttle")
struct LogThrottleTests {
    func at(_ seconds: Double) -> NIODeadline { .uptimeNanoseconds(UInt64(1_000_000_000 + seconds * 1e9)) }

    @Test("the first event is logged, the rest of the interval counted, the next line gives the count")
    func throttles() {
        var throttle = LogThrottle(interval: .seconds(10))
        let flood = [0] + (1...1000).map { Double($0) / 1000 } + [9.999]
        let lines = flood.map { throttle.admit(at: at($0)) }
        #expect(lines.first == 0)
        #expect(lines.dropFirst().allSatisfy { $0 == nil })
        #expect(throttle.suppressed == 1001)
        let later = [10, 25].map { throttle.admit(at: at($0)) }
        #expect(later == [1001, 0])
        #expect(throttle.suppressed == 0)
    }
}
