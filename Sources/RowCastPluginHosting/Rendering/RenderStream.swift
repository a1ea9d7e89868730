/// The outcomes of a list of render jobs, which may still be arriving: a renderer in other
/// processes answers in chunks, so the engine can apply the first rows of a batch while the
/// plugins render the rest.
///
/// Outcomes are asked for in job order, or close to it; asking for a later one waits for
/// those before it. A loop that must not block asks `hasOutcomes(through:)` first and, while
/// it answers false, waits on `renderWait` itself.
public protocol RenderStream: AnyObject {
    /// The outcome of job `index`, waiting for it if it has not arrived.
    func outcome(at index: Int) -> RenderOutcome
    /// Whether jobs `0...index` all have their outcomes, taking what the renderer has answered
    /// so far without waiting.
    func hasOutcomes(through index: Int) -> Bool
    /// Whether job `index` has its outcome, whatever the jobs before it have: a loop that lets
    /// messages overtake one that waits on a troubled host asks this of each.
    func hasOutcome(at index: Int) -> Bool
    /// What to wait on before asking `hasOutcomes(through:)` again (nil: nothing is due).
    var renderWait: RenderWait? { get }
    /// Waits for every outcome still due, so the renderer is idle before its next jobs.
    func finish()
}

/// A stream whose outcomes are all known: what renderers that call plugins in rowcastd return.
public final class RenderedOutcomes: RenderStream {
    private let outcomes: [RenderOutcome]

    /// The stream of `outcomes`.
    public init(_ outcomes: [RenderOutcome]) { self.outcomes = outcomes }

    /// Outcome `index`.
    public func outcome(at index: Int) -> RenderOutcome { outcomes[index] }

    /// Always: every outcome is known.
    public func hasOutcomes(through index: Int) -> Bool { true }

    /// Always: every outcome is known.
    public func hasOutcome(at index: Int) -> Bool { true }

    /// Nothing to wait on.
    public var renderWait: RenderWait? { nil }

    /// Nothing to wait for.
    public func finish() {}
}
