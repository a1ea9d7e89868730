import Logging
import Synchronization

/// The daemon's log level, shared by every logger so that a reload can change it while the
/// daemon runs. `Sendable`: one atomic.
public final class LogLevelSwitch: Sendable {
    private let index: Atomic<Int>

    /// A switch set to `level`.
    public init(_ level: Logger.Level) { index = Atomic(Self.index(of: level)) }

    /// The level now.
    public var level: Logger.Level {
        get { Logger.Level.allCases[index.load(ordering: .relaxed)] }
        set { index.store(Self.index(of: newValue), ordering: .relaxed) }
    }

    private static func index(of level: Logger.Level) -> Int {
        Logger.Level.allCases.firstIndex(of: level)!
    }
}
