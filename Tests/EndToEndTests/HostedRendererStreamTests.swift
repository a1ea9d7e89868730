import Foundation
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import Testing

/// A plugin host answers a batch in chunks and rowcastd reads them as the engine asks: real
/// hosts running the C fixture `fault_plugin.c`, batches many chunks long with faults in the
/// middle, and batches of one plugin started before the previous one was read.
@Suite(.serialized)
struct HostedRendererStreamTests {
    /// How long a callback may take: 1 s, or 10 s under a sanitizer, whose symbolized report
    /// on a crash took more than 2.5 s on a loaded 2-core machine, so a crash is never taken
    /// for a hang (as `DaemonProcess` gives its daemons).
    static let callTimeoutMilliseconds = SanitizerRuntime.isActive ? 10_000 : 1000

    /// A renderer with a host for the fault fixture.
    static func renderer(_ plugins: TemporaryDirectory) throws -> HostedRenderer {
        let settings = PluginHostSettings(
            executable: try BuildProducts.path("rowcast-plugin-host"),
            callTimeoutMilliseconds: Self.callTimeoutMilliseconds,
            memoryMegabytes: 256)
        let renderer = HostedRenderer.load(
            directories: [plugins.path], settings: settings, logger: .init(label: "test"))
        guard renderer.pluginCount == 1 else {
            throw TestFailure("the fault fixture did not load: \(renderer.refusals)")
        }
        return renderer
    }

    /// A render job for the fixture's item `id`.
    static func job(_ id: String) -> RenderJob {
        RenderJob(kind: .renderItem, type: FaultPlugin.itemType, input: Array(#"{"id":"\#(id)","type":"fault"}"#.utf8))
    }

    /// `ok`, or the fault's code, or what else the outcome was.
    static func summary(_ outcome: RenderOutcome) -> String {
        switch outcome {
        case .ok: "ok"
        case .faulted(let report): report.code.rawValue
        default: "\(outcome)"
        }
    }

    @Test(
        "a batch of many chunks with crashes and a hang in the middle: each fault costs its own item, every other item renders once",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(2)))
    func faultsInsideALongBatch() throws {
        let plugins = try FaultPlugin.directory()
        let renderer = try Self.renderer(plugins)
        defer { renderer.stopHosts() }
        let faults = [40: "segv", 41: "abort", 100: "exit", 250: "hang", 299: "_exit"]
        let ids = (0..<300).map { faults[$0] ?? "good-\($0)" }
        let stream = renderer.startRendering(ids.map(Self.job))
        for (index, id) in ids.enumerated() {
            let expected = id == "hang" ? "plugin_timeout" : faults.values.contains(id) ? "plugin_crashed" : "ok"
            #expect(Self.summary(stream.outcome(at: index)) == expected, "item \(index) (\(id))")
        }
        stream.finish()
        let host = try #require(renderer.hostsDescription().first)
        #expect(host["faults"]?.numberValue == 5)
        #expect(host["restarts"]?.numberValue == 5)
        #expect(host["rendered"]?.numberValue == 295, "every good item is answered exactly once")
        #expect(host["lastFault"]?["item"]?.stringValue == "_exit")
        // The restarted host serves the next batch.
        #expect(renderer.render([Self.job("after")]).map(Self.summary) == ["ok"])
    }

    @Test(
        "one batch across two plugins' hosts, one item hanging in the first: only that item times out, the other host is neither faulted nor restarted",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(2)))
    func hangInOneHostCostsNothingInAnother() throws {
        let plugins = try FaultPlugin.directory()
        try FaultPlugin.compile(
            to: plugins.url.appendingPathComponent("librowcast-calm.so").path,
            defines: [#"FAULT_NAME="calm""#, #"FAULT_TYPE="calm""#])
        let settings = PluginHostSettings(
            executable: try BuildProducts.path("rowcast-plugin-host"),
            callTimeoutMilliseconds: Self.callTimeoutMilliseconds,
            memoryMegabytes: 256)
        let renderer = HostedRenderer.load(
            directories: [plugins.path], settings: settings, logger: .init(label: "test"))
        defer { renderer.stopHosts() }
        #expect(renderer.pluginCount == 2, "\(renderer.refusals)")
        func calm(_ id: String) -> RenderJob {
            RenderJob(kind: .renderItem, type: "calm", input: Array(#"{"id":"\#(id)","type":"calm"}"#.utf8))
        }
        // The calm host's items on both sides of the hanging one, and after it in the batch.
        let jobs =
            [calm("c0"), Self.job("f0"), calm("c1"), Self.job("hang"), calm("c2"), Self.job("f1")]
            + (3..<40).map { calm("c\($0)") }
        let stream = renderer.startRendering(jobs)
        let summaries = jobs.indices.map { Self.summary(stream.outcome(at: $0)) }
        stream.finish()
        #expect(summaries[3] == "plugin_timeout")
        #expect(summaries.enumerated().allSatisfy { $0.offset == 3 || $0.element == "ok" }, "\(summaries)")
        let hosts = Dictionary(
            uniqueKeysWithValues: renderer.hostsDescription().compactMap { host in
                host["plugin"]?.stringValue.map { ($0, host) }
            })
        #expect(hosts["fault"]?["faults"]?.numberValue == 1)
        #expect(hosts["calm"]?["faults"]?.numberValue == 0)
        #expect(hosts["calm"]?["restarts"]?.numberValue == 0, "the calm host was not killed for the other's hang")
        #expect(hosts["calm"]?["rendered"]?.numberValue == 40)
    }

    @Test(
        "a second batch for the same plugin, started before the first was read: both come back complete and in order",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(2)))
    func overlappingBatches() throws {
        let plugins = try FaultPlugin.directory()
        let renderer = try Self.renderer(plugins)
        defer { renderer.stopHosts() }
        let first = renderer.startRendering(
            (0..<200).map { Self.job($0 == 150 ? "segv" : "a\($0)") } + [
                RenderJob(kind: .renderItem, type: "no-such-type", input: Array("{}".utf8))
            ])
        let second = renderer.startRendering((0..<70).map { Self.job("b\($0)") })
        #expect((0..<70).map { Self.summary(second.outcome(at: $0)) } == Array(repeating: "ok", count: 70))
        let firstSummaries = (0..<201).map { Self.summary(first.outcome(at: $0)) }
        #expect(firstSummaries[150] == "plugin_crashed")
        #expect(firstSummaries[200] == "\(RenderOutcome.noRenderer)")
        #expect(firstSummaries.enumerated().allSatisfy { $0.offset == 150 || $0.offset == 200 || $0.element == "ok" })
        first.finish()
        second.finish()
        #expect(renderer.hostsDescription().first?["rendered"]?.numberValue == 269)
    }

    @Test(
        "crashes in a row pause the plugin: the rest of the batch is answered plugin_unavailable without a host, and after the pause it renders again",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(2)))
    func crashLoopPausesThePlugin() throws {
        let plugins = try FaultPlugin.directory()
        let renderer = try Self.renderer(plugins)
        defer { renderer.stopHosts() }
        let summaries = renderer.render((0..<50).map { _ in Self.job("segv") }).map(Self.summary)
        #expect(summaries.prefix(3) == ["plugin_crashed", "plugin_crashed", "plugin_crashed"])
        #expect(summaries.dropFirst(3).allSatisfy { $0 == "plugin_unavailable" }, "\(summaries)")
        let paused = try #require(renderer.hostsDescription().first)
        #expect(paused["faults"]?.numberValue == 3)
        #expect(paused["restarts"]?.numberValue == 2, "the third fault started no host")
        #expect(paused["state"]?.stringValue == "backoff")
        let pausedFor = try #require(paused["pausedFor"]?.numberValue)
        #expect(pausedFor > 0 && pausedFor <= 1000)
        // A good item in the pause is not sent either; after it, one is.
        #expect(renderer.render([Self.job("early")]).map(Self.summary) == ["plugin_unavailable"])
        Thread.sleep(forTimeInterval: pausedFor / 1000 + 0.05)
        #expect(renderer.hostsDescription().first?["state"] == "restarting", "the pause is over; no host yet")
        #expect(renderer.render([Self.job("after")]).map(Self.summary) == ["ok"])
        let host = try #require(renderer.hostsDescription().first)
        #expect(host["restarts"]?.numberValue == 3)
        #expect(host["rendered"]?.numberValue == 1)
        #expect(host["pausedFor"] == .null)
    }

    @Test(
        "hangs in a row pause the plugin too: three items time out, the others do not wait",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(3)))
    func hangLoopPausesThePlugin() throws {
        let plugins = try FaultPlugin.directory()
        let renderer = try Self.renderer(plugins)
        defer { renderer.stopHosts() }
        let summaries = renderer.render((0..<20).map { _ in Self.job("hang") }).map(Self.summary)
        #expect(summaries.prefix(3) == ["plugin_timeout", "plugin_timeout", "plugin_timeout"])
        #expect(summaries.dropFirst(3).allSatisfy { $0 == "plugin_unavailable" }, "\(summaries)")
        #expect(renderer.hostsDescription().first?["faults"]?.numberValue == 3)
    }
}
