import Foundation
import RowCastPluginHosting

/// The outcomes of a batch of cell rows, delivered in order by the thread that renders them
/// and read by the loop as it needs them: reading one not yet rendered waits for it.
final class CellRenderBatch: @unchecked Sendable {  // `outcomes` is guarded by `condition`
    private let condition = NSCondition()
    private var outcomes: [RenderOutcome] = []
    private let count: Int

    /// A batch of `count` outcomes.
    init(count: Int) {
        self.count = count
        outcomes.reserveCapacity(count)
    }

    /// Adds the next outcome; a waiting reader is woken every few outcomes, and at the end.
    func deliver(_ outcome: RenderOutcome) {
        condition.lock()
        outcomes.append(outcome)
        if outcomes.count % 8 == 0 || outcomes.count == count { condition.broadcast() }
        condition.unlock()
    }

    /// Outcome `position`, waiting until it is rendered.
    func outcome(at position: Int) -> RenderOutcome {
        condition.lock()
        defer { condition.unlock() }
        while outcomes.count <= position { condition.wait() }
        return outcomes[position]
    }

    /// Waits until every outcome is rendered.
    func finish() {
        guard count > 0 else { return }
        _ = outcome(at: count - 1)
    }
}
