import RowCastPluginHosting

/// The outcomes of a batch split three ways: answered at once (a select on a cell), rendered
/// by the cells (a ``CellRenderBatch``), or by the plugins (their own stream).
final class MergedRenderStream: RenderStream {
    private let inline: [RenderOutcome?]
    private let pluginIndex: [Int?]
    private let plugins: (any RenderStream)?
    private let cellIndex: [Int?]
    private let cells: CellRenderBatch
    /// How many jobs, from the first, are known to have their outcomes.
    private var answeredPrefix = 0

    /// A stream over the three parts; `pluginIndex` and `cellIndex` map a job to its place.
    init(
        inline: [RenderOutcome?], pluginIndex: [Int?], plugins: (any RenderStream)?, cellIndex: [Int?],
        cells: CellRenderBatch
    ) {
        self.inline = inline
        self.pluginIndex = pluginIndex
        self.plugins = plugins
        self.cellIndex = cellIndex
        self.cells = cells
    }

    /// Job `index`'s outcome, waiting for it when it is still being rendered.
    func outcome(at index: Int) -> RenderOutcome {
        if let position = cellIndex[index] { return cells.outcome(at: position) }
        if let position = pluginIndex[index], let plugins { return plugins.outcome(at: position) }
        return inline[index] ?? .noRenderer
    }

    /// Whether jobs `0...index` have their outcomes. Cell rows count as answered: they are
    /// rendered in this process, on the cells' thread, without a descriptor to wait on, and
    /// asking for one waits only for the rows before it.
    func hasOutcomes(through index: Int) -> Bool {
        while answeredPrefix <= index {
            if let position = pluginIndex[answeredPrefix], let plugins, !plugins.hasOutcomes(through: position) {
                return false
            }
            answeredPrefix += 1
        }
        return true
    }

    /// Whether job `index` has its outcome: always, unless a plugin renders it and has not
    /// answered yet.
    func hasOutcome(at index: Int) -> Bool {
        guard let position = pluginIndex[index], let plugins else { return true }
        return plugins.hasOutcome(at: position)
    }

    /// The plugins' wait, if they are still rendering.
    var renderWait: RenderWait? { plugins?.renderWait }

    /// Waits for the plugins and the cells.
    func finish() {
        plugins?.finish()
        cells.finish()
    }
}

@available(*, unavailable)
extension MergedRenderStream: Sendable {}
