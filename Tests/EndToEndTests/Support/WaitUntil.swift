import Foundation

/// Waits until `condition` holds, checking every `interval` seconds for at most `seconds`;
/// throws a `TestFailure` naming `what` when it never did.
func waitUntil(
    _ what: String, seconds: TimeInterval, interval: TimeInterval = 0.05, _ condition: () throws -> Bool
) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
        guard Date() < deadline else { throw TestFailure("\(what): not within \(seconds) s") }
        Thread.sleep(forTimeInterval: interval)
    }
}
