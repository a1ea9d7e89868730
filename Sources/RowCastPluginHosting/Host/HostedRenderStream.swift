/// The outcomes of jobs sent to plugin hosts, a batch per plugin, read as they are asked for.
///
/// Not `Sendable`: the loop thread alone uses it.
final class HostedRenderStream: RenderStream {
    /// Where a job went: which plugin's batch, which call of it.
    struct Place {
        /// The batch (index into the batches), -1 when no plugin takes the job.
        var group: Int32
        /// The call in that batch.
        var call: Int32

        /// A job no plugin takes.
        static let none = Place(group: -1, call: -1)
    }

    private let kinds: [PluginCallKind]
    private let places: [Place]
    private let batches: [(plugin: HostedPlugin, batch: HostBatch)]
    /// How many jobs, from the first, are known to have their outcomes.
    private var answeredPrefix = 0

    /// The stream of jobs of `kinds` sent as `places` say, in `batches`.
    init(kinds: [PluginCallKind], places: [Place], batches: [(plugin: HostedPlugin, batch: HostBatch)]) {
        self.kinds = kinds
        self.places = places
        self.batches = batches
    }

    /// The outcome of job `index`: `.noRenderer` when no plugin took it.
    func outcome(at index: Int) -> RenderOutcome {
        let place = places[index]
        guard place.group >= 0 else { return .noRenderer }
        let (plugin, batch) = batches[Int(place.group)]
        return HostedRenderer.outcome(batch.result(at: Int(place.call)), kind: kinds[index], plugin: plugin)
    }

    /// Whether jobs `0...index` have their outcomes, reading what the hosts already sent.
    /// Before it answers no, it reads what every host sent, not only the one that holds the
    /// next job: a host whose answers (or death) went unread would keep `renderWait`'s
    /// descriptors readable, and the loop would spin until the first host answered.
    func hasOutcomes(through index: Int) -> Bool {
        while answeredPrefix <= index {
            let place = places[answeredPrefix]
            guard place.group < 0 || batches[Int(place.group)].batch.hasResult(at: Int(place.call)) else {
                for (_, batch) in batches { batch.takeAnswered() }
                return false
            }
            answeredPrefix += 1
        }
        return true
    }

    /// Whether job `index` has its outcome, reading what the hosts already sent (every host's,
    /// for the reason `hasOutcomes(through:)` gives).
    func hasOutcome(at index: Int) -> Bool {
        let place = places[index]
        guard place.group >= 0 else { return true }
        let batch = batches[Int(place.group)].batch
        if batch.hasResult(at: Int(place.call)) { return true }
        for (_, batch) in batches { batch.takeAnswered() }
        return batch.hasResult(at: Int(place.call))
    }

    /// Every host still working on a batch of the stream: its descriptors, the nearest deadline.
    var renderWait: RenderWait? {
        batches.reduce(nil) { wait, entry in entry.batch.renderWait.map { $0.merged(with: wait) } ?? wait }
    }

    /// Reads every host's answers to the end.
    func finish() {
        for (_, batch) in batches { batch.finish() }
    }
}

@available(*, unavailable)
extension HostedRenderStream: Sendable {}
