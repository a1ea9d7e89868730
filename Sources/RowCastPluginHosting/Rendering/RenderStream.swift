/// The outcomes of a list of render jobs, which may still be arriving: a renderer in other
/// processes answers in chunks, so the engine can apply the first rows of a batch while the
/// plugins render the rest.
///
/// Outcomes are asked for in job order, or close to it; asking for a later one waits for
/// those before it.
public protocol RenderStream: AnyObject {
    /// The outcome of job `index`, waiting for it if it has not arrived.
    func outcome(at index: Int) -> RenderOutcome
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

    /// Nothing to wait for.
    public func finish() {}
}
