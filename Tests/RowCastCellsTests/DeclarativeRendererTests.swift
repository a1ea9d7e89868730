import RowCastCells
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import Testing

/// The built-in renderer: cells' types here, the rest to the plugins, batches in order
/// whether the cells' rows are rendered on their thread or on the caller's.
@Suite struct DeclarativeRendererTests {
    /// A plugin renderer that answers `plugin:<input length>` for type `p`.
    final class FakePlugins: RowRendering {
        func renderItem(type: String, input: [UInt8]) -> RenderOutcome {
            type == "p" ? .ok(Array("plugin:\(input.count)".utf8)) : .noRenderer
        }
        func renderHeader(type: String, input: [UInt8]) -> RenderOutcome { .noRenderer }
        func select(type: String, input: [UInt8]) -> RenderOutcome { .noRenderer }
        func rendererIdentity(forItemType type: String) -> String? { type == "p" ? "fake" : nil }
        func rendererIdentity(forHeaderType type: String) -> String? { nil }
        func pluginsDescription() -> JSONObject { JSONObject() }
        var pluginCount: Int { 1 }
    }

    static func renderer() -> DeclarativeRenderer {
        var catalog = CellCatalog()
        catalog.add(
            text: """
                cells:
                  - types: [c, p]
                    cell: C
                    height: 10
                    fields: {n: integer}
                    content: {text: "#{{n}} {{count(n)}}"}
                """, file: "t.yaml")
        return DeclarativeRenderer(catalog: catalog, plugins: FakePlugins(), now: { 0 })
    }

    static func item(_ index: Int, type: String) -> [UInt8] {
        // Every 10th item lacks its field: a refusal in the middle of the batch.
        let data = index % 10 == 7 ? "{}" : "{\"n\":\(index * 97)}"
        return Array("{\"id\":\"i\(index)\",\"type\":\"\(type)\",\"data\":\(data)}".utf8)
    }

    @Test func aTypeThatAPluginClaimsStaysThePlugins() {
        let renderer = Self.renderer()
        #expect(renderer.rendererIdentity(forItemType: "p") == "fake")
        #expect(renderer.rendererIdentity(forItemType: "c")?.hasPrefix("cells t.yaml C ") == true)
        #expect(
            renderer.catalog.refusals.map(\.problem) == [
                "item type \"p\" is rendered by the plugin fake; this cell is not used for it"
            ])
    }

    @Test(arguments: [5, 31, 32, 500])
    func aBatchAnswersInOrderWhereverItsRowsAreRendered(size: Int) {
        let renderer = Self.renderer()
        let jobs = (0..<size).map { index in
            RenderJob(
                kind: .renderItem, type: index % 3 == 0 ? "p" : "c",
                input: Self.item(index, type: index % 3 == 0 ? "p" : "c"))
        }
        let stream = renderer.startRendering(jobs)
        for (index, job) in jobs.enumerated() {
            #expect(stream.outcome(at: index) == renderer.renderItem(type: job.type, input: job.input), "job \(index)")
        }
        stream.finish()
        if case .rejected(_, let field, let code) = renderer.renderItem(type: "c", input: Self.item(7, type: "c")) {
            #expect(field == "n")
            #expect(code == "missing_field")
        } else {
            Issue.record("item 7 should be refused")
        }
    }

    @Test func finishWaitsForEveryRowOfAThreadedBatch() {
        let renderer = Self.renderer()
        let jobs = (0..<200).map { RenderJob(kind: .renderItem, type: "c", input: Self.item($0, type: "c")) }
        let stream = renderer.startRendering(jobs)
        stream.finish()
        #expect(stream.outcome(at: 199) == renderer.renderItem(type: "c", input: jobs[199].input))
    }
}
