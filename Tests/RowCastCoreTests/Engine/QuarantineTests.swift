import Foundation
@testable import RowCastEngine
import RowCastJSON
import RowCastPluginHosting
@testable import RowCastStore
import RowCastTesting
import Testing

/// The quarantine is stored with the items, never rendered at a start or a reload, and
/// bounded: past its limits the oldest entry is dropped with an error event.
struct QuarantineTests {
    static let fault = PluginFaultReport(code: .pluginCrashed, reason: "killed", plugin: "p", file: "p.so")

    @Test("a fault report's texts carry no U+0000 (the stores refuse or cut it): U+FFFD takes its place")
    func faultReportWithoutNUL() {
        let report = PluginFaultReport(
            code: .pluginCrashed, reason: "refused:\u{0}after", plugin: "p\u{0}", file: "/x\u{0}.so")
        #expect(report.reason == "refused:\u{FFFD}after")
        #expect(report.plugin == "p\u{FFFD}")
        #expect(report.file == "/x\u{FFFD}.so")
        #expect(PluginFaultReport(code: .pluginCrashed, reason: "killed", plugin: "p", file: "p.so") == Self.fault)
    }

    func ids(_ quarantine: Quarantine) -> [String] {
        quarantine.keys(feed: nil, id: nil).map { "\($0.feed)/\($0.id)" }
    }

    @Test("past the limit per feed, then the limit in all, the oldest entry is dropped and handed back")
    func limits() {
        var quarantine = Quarantine()
        quarantine.limits = Quarantine.Limits(perFeed: 2, total: 3)
        quarantine.add(feed: "a", id: "1", type: "t", fault: Self.fault)
        quarantine.add(feed: "a", id: "2", type: "t", fault: Self.fault)
        quarantine.add(feed: "b", id: "1", type: "t", fault: Self.fault)
        #expect(quarantine.takeDropped().isEmpty)
        quarantine.add(feed: "a", id: "3", type: "t", fault: Self.fault)
        #expect(ids(quarantine) == ["a/2", "b/1", "a/3"])
        #expect(quarantine.takeDropped().map { "\($0.feed)/\($0.id)" } == ["a/1"])
        quarantine.add(feed: "c", id: "1", type: "t", fault: Self.fault)
        #expect(ids(quarantine) == ["b/1", "a/3", "c/1"])
        #expect(quarantine.takeDropped().map { "\($0.feed)/\($0.id)" } == ["a/2"])
        // A damaged record's entry counts for neither limit, and is never stored.
        quarantine.addDamaged(DamagedItem(feed: "a", id: "9", type: "t", reason: "checksum", known: true))
        #expect(quarantine.count == 4)
        #expect(quarantine.takeDropped().isEmpty)
        let changes = quarantine.takeChanges()
        #expect(changes.entered.map { "\($0.feed)/\($0.id)" } == ["a/3", "b/1", "c/1"])
        #expect(changes.left.map { "\($0.feed)/\($0.id)" } == ["a/1", "a/2"])
        #expect(quarantine.takeChanges().isEmpty)
    }

    @Test("an entry dropped for the limits is reported on the error topic with quarantine_full")
    func dropReported() {
        let harness = EngineHarness()
        harness.engine.quarantine.limits = Quarantine.Limits(perFeed: 1, total: 10)
        _ = harness.control(upsert("f", item("1", data: ["crash": true])))
        let second = harness.control(upsert("f", item("2", data: ["crash": true])))
        let full = second.errors.filter { $0["code"] == "quarantine_full" }
        #expect(full.count == 1, "\(second.errors)")
        #expect(full.first?["id"] == "1")
        #expect(full.first?["feed"] == "f")
        #expect(ids(harness.engine.quarantine) == ["f/2"])
    }

    @Test(
        "stored poison items stay quarantined across a restart: no start renders them (not after a plugin change either), no reload does; a retry does"
    )
    func neverRenderedAtStartOrReload() throws {
        let directory = try ScratchDirectory()
        func start(_ renderer: FakeRenderer) throws -> (EngineHarness, DurableEngine) {
            let harness = EngineHarness(renderer: renderer)
            let durable = DurableEngine(
                engine: harness.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
            _ = try durable.start()
            return (harness, durable)
        }
        func send(_ durable: DurableEngine, _ request: JSONValue) throws -> JSONValue {
            let output = try durable.process([
                IncomingMessage(origin: .control(replyTo: 0), body: request.serialized())
            ])
            return try JSONParser.parse(output.replies[0].body)
        }
        var (harness, durable) = try start(FakeRenderer())
        for index in 0..<100 {
            let reply = try send(durable, upsert("f", item("poison-\(index)", data: ["crash": true])))
            #expect(reply["error"]?["code"] == "plugin_crashed")
        }
        _ = try send(durable, upsert("f", item("good")))
        #expect(harness.engine.quarantine.count == 100)
        durable.close()

        // Same plugin: nothing rendered; the quarantine is back, whole.
        (harness, durable) = try start(FakeRenderer())
        #expect(harness.renderer.renderCalls == 0)
        #expect(harness.engine.quarantine.count == 100)
        #expect(harness.snapshot("f")["pending"] == 100)
        durable.close()

        // A changed plugin: its good item is rendered again in the background, no poison item.
        let changed = FakeRenderer(generation: 2)
        (harness, durable) = try start(changed)
        #expect(changed.renderCalls == 0)
        while durable.hasStaleRenders {
            durable.submitStaleRender()
            _ = try durable.flush()
        }
        #expect(changed.renderCalls == 1)
        // A reload to yet another build renders the good item again, no poison item.
        _ = durable.replaceRenderer(FakeRenderer(generation: 3))
        #expect(harness.engine.quarantine.count == 100)
        let fixed = FakeRenderer(generation: 4)
        fixed.crashes = false
        _ = durable.replaceRenderer(fixed)
        #expect(fixed.renderCalls == 1)
        #expect(harness.engine.quarantine.count == 100)
        // Only a retry renders them; fixed, they leave the quarantine, durably.
        let retry = try send(durable, ["op": "quarantine", "retry": true])
        #expect(retry["retried"] == 100)
        #expect(harness.engine.quarantine.count == 0)
        #expect(harness.snapshot("f")["pending"] == 0)
        durable.close()

        (harness, durable) = try start(fixed)
        #expect(harness.engine.quarantine.count == 0)
        #expect(harness.snapshot("f")["pending"] == 0)
        durable.close()
    }
}
