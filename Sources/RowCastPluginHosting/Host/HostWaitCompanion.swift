/// Work the loop thread may do while it waits for a plugin host's answers: descriptors
/// watched beside the host's channel, and what to do when one becomes readable.
///
/// rowcastd uses it to send the deltas and replies of a commit that finished while a host was
/// rendering the next batch, so that a batch's output does not wait for the next batch's round
/// trip, and to start a held-back commit when it is due (`DurableEngine.advanceWhileWaiting`).
///
/// The action runs on the loop thread in the middle of a render: it must not call into the
/// engine or the renderer, and it must make the descriptors unreadable again (or the wait
/// would spin). It is not run again from inside itself. Not `Sendable`: the loop thread alone
/// uses it.
public final class HostWaitCompanion {
    /// The descriptors to watch.
    public let descriptors: [Int32]
    private let action: () -> Void
    private var running = false

    /// A companion that runs `action` when one of `descriptors` is readable during a wait for
    /// a host.
    public init(descriptors: [Int32], action: @escaping () -> Void) {
        self.descriptors = descriptors
        self.action = action
    }

    /// Runs the action, unless it is already running.
    func run() {
        guard !running else { return }
        running = true
        defer { running = false }
        action()
    }
}

@available(*, unavailable)
extension HostWaitCompanion: Sendable {}
