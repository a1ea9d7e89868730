/// One batch of calls on a plugin's host, answered as the host's results arrive: which calls
/// went to the current host, how many of those are answered, and every outcome known so far.
///
/// Results are read on demand: asking for a call's result reads the host's answers up to it,
/// so rowcastd can use the first results while the host works on the rest. Not `Sendable`:
/// the loop thread alone uses it.
final class HostBatch {
    /// The calls, in the order given.
    let calls: [HostCall]
    /// The outcome of each call, nil while unknown.
    private(set) var outcomes: [Result<HostCallResult, HostFault>?]
    /// The calls sent to the running host, in the order sent (indices into `calls`); empty
    /// when nothing is outstanding.
    var inFlight: [Int] = []
    /// How many of `inFlight` the host has answered.
    var answered = 0
    /// How often the host died between calls during this batch.
    var blindFaults = 0
    private var unknown: Int
    private let plugin: HostedPlugin
    /// When the batch was sent, for the render latency the observer gets.
    let started = ContinuousClock.now

    /// A batch of `calls` for `plugin`'s host, nothing sent yet.
    init(calls: [HostCall], plugin: HostedPlugin) {
        self.calls = calls
        self.plugin = plugin
        outcomes = Array(repeating: nil, count: calls.count)
        unknown = calls.count
    }

    /// Whether every call has its outcome.
    var isComplete: Bool { unknown == 0 }

    /// The outcome of call `index`, reading the host's answers until it is known.
    func result(at index: Int) -> Result<HostCallResult, HostFault> {
        while true {
            if let outcome = outcomes[index] { return outcome }
            plugin.advance(self)
        }
    }

    /// Whether call `index` has its outcome, after taking what the host already answered
    /// (without waiting).
    func hasResult(at index: Int) -> Bool {
        while outcomes[index] == nil {
            guard plugin.advance(self, waiting: false) else { return false }
        }
        return true
    }

    /// Takes every answer the host already sent, without waiting.
    func takeAnswered() {
        while !isComplete, plugin.advance(self, waiting: false) {}
    }

    /// What to wait on before asking again (see `HostedPlugin.renderWait(for:)`).
    var renderWait: RenderWait? { plugin.renderWait(for: self) }

    /// Reads the host's answers until every call has its outcome.
    func finish() {
        while !isComplete { plugin.advance(self) }
    }

    /// Records the outcome of call `index`.
    func resolve(_ index: Int, _ outcome: Result<HostCallResult, HostFault>) {
        if outcomes[index] == nil { unknown -= 1 }
        outcomes[index] = outcome
    }

    /// The calls sent and not answered, in order.
    var unanswered: [Int] { Array(inFlight[answered...]) }
}

@available(*, unavailable)
extension HostBatch: Sendable {}
