import Foundation
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import Testing

/// Replacing a loaded plugin file is always safe: a real rowcastd with the C fixture
/// `fault_plugin.c` in its plugin hosts, the file overwritten in place by `cp` while a publisher
/// keeps sending, reloaded by request and by SIGHUP; a replacement that is refused keeps the
/// version before it serving; and what a plugin prints reaches the daemon's log, not the channel.
@Suite(.serialized)
struct PluginHotReplaceEndToEndTests {
    /// The ids of every row a delta inserts, with the fixture build (`content.v`) that rendered
    /// it, whether the row comes in a new section or on its own.
    static func insertedRows(_ delta: JSONValue) -> [(id: String, version: String)] {
        var rows: [JSONValue] = []
        for section in delta["sections"]?["inserted"]?.arrayValue ?? [] {
            rows += section["rows"]?.arrayValue ?? []
        }
        for entry in delta["rows"]?["inserted"]?.arrayValue ?? [] {
            if let row = entry["row"] { rows.append(row) }
        }
        return rows.compactMap { row in
            guard let id = row["id"]?.stringValue else { return nil }
            return (id, row["content"]?["v"]?.stringValue ?? "?")
        }
    }

    /// The version of the loaded `fault` plugin, from a `plugins` reply.
    static func loadedVersion(_ reply: JSONValue) -> String? {
        reply["plugins"]?.arrayValue?.first { $0["name"] == "fault" }?["version"]?.stringValue
    }

    /// One item the flow test published: the build confirmed loaded before it was sent, and
    /// the newest build copied in by the time its ack came back.
    struct Published: Sendable {
        let id: String
        let loadedBefore: Int
        let copiedByAck: Int
    }

    @Test(
        "a plugin file overwritten in place by cp 20 times while items flow, reloaded by request and by SIGHUP: no crash, every item acked and first rendered by a build that was loaded while it was processed",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(5)))
    func replaceInPlaceWhileItemsFlow() throws {
        let rounds = 20
        let plugins = try FaultPlugin.directory(defines: ["FAULT_VERSION=\"0\""])
        let pluginFile = plugins.url.appendingPathComponent(FaultPlugin.fileName).path
        let builds = try TemporaryDirectory("rowcast-fault-builds")
        let buildFiles = try (1...rounds).map { round in
            try FaultPlugin.compile(to: builds.path + "/fault-\(round).so", defines: ["FAULT_VERSION=\"\(round)\""])
        }
        let daemon = try DaemonProcess(
            pluginDirectory: plugins, extraArguments: PluginFaultEndToEndTests.isolation(timeoutMilliseconds: 2000))
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)

        // The subscriber reads every delta of the feed as it comes (SUB drops at its
        // high-water mark when nobody reads), from a peer of its own.
        let deltas = Locked<[JSONValue]>([])
        let subscriberPeer = Locked<RawPeer?>(try RawPeer(daemon))
        let stop = Locked(false)
        let subscriberDone = DispatchSemaphore(value: 0)
        let subscriberErrors = Locked<[String]>([])
        try subscriberPeer.get()!.subscribe([Array("rows.flow\0".utf8)])
        let subscriber = Thread {
            defer { subscriberDone.signal() }
            guard let socket = subscriberPeer.get()?.subscriber else { return }
            do {
                try socket.setOption(.receiveTimeout, 200)
                while true {
                    guard let frames = try socket.receiveMultipart() else {
                        if stop.get() { return }
                        continue
                    }
                    guard frames.count == 2 else { continue }
                    // Position announcements share the topic; only deltas count here.
                    let body = try JSONParser.parse(frames[1])
                    if body["event"] == "delta" { deltas.update { $0.append(body) } }
                }
            } catch {
                subscriberErrors.update { $0.append("\(error)") }
            }
        }
        subscriber.start()

        // The publisher sends acked upserts one after another until told to stop.
        let loaded = Locked(0)
        let copied = Locked(0)
        let published = Locked<[Published]>([])
        let publisherErrors = Locked<[String]>([])
        let publisherDone = DispatchSemaphore(value: 0)
        let publisherPeer = Locked<RawPeer?>(try RawPeer(daemon))
        let publisher = Thread {
            defer { publisherDone.signal() }
            guard let peer = publisherPeer.get() else { return }
            var index = 0
            while !stop.get() {
                index += 1
                let id = "item-\(index)"
                let before = loaded.get()
                do {
                    let ack = try peer.request(PluginFaultEndToEndTests.upsert("flow", id))
                    guard ack["ok"] == true else {
                        publisherErrors.update { $0.append("\(id): \(ack)") }
                        continue
                    }
                    published.update { $0.append(Published(id: id, loadedBefore: before, copiedByAck: copied.get())) }
                } catch {
                    publisherErrors.update { $0.append("\(id): \(error)") }
                    return
                }
            }
        }
        publisher.start()

        for round in 1...rounds {
            // Let items flow under the current build for a moment, then overwrite it in place.
            let floor = published.get().count + 5
            _ = eventually(timeout: 10) { published.get().count >= floor || !publisherErrors.get().isEmpty }
            copied.set(round)
            try FaultPlugin.copyInPlace(buildFiles[round - 1], over: pluginFile)
            if round % 2 == 0 {
                daemon.signal(SIGHUP)
                let version = String(round)
                #expect(
                    try eventually(timeout: 20) { Self.loadedVersion(try peer.request(["op": "plugins"])) == version },
                    "round \(round): SIGHUP did not load build \(round)")
            } else {
                let reload = try peer.request(["op": "reload"])
                #expect(reload["ok"] == true, "reload \(round): \(reload)")
                #expect(
                    reload["loaded"]?.arrayValue?.contains {
                        $0["name"] == "fault" && $0["version"] == .string(String(round))
                    } == true,
                    "reload \(round): \(reload)")
            }
            loaded.set(round)
            try #require(daemon.process.isRunning, "rowcastd died at round \(round); log:\n\(daemon.log)")
        }
        let floor = published.get().count + 5
        _ = eventually(timeout: 10) { published.get().count >= floor || !publisherErrors.get().isEmpty }
        stop.set(true)
        #expect(publisherDone.wait(timeout: .now() + 30) == .success, "the publisher did not stop")

        #expect(publisherErrors.get().isEmpty, "\(publisherErrors.get().prefix(5))")
        #expect(daemon.process.isRunning, "rowcastd died; log:\n\(daemon.log)")
        let items = published.get()
        #expect(items.count >= rounds * 5, "only \(items.count) items were published")

        // Every acked item has its row, now rendered by the last build (a reload renders the
        // items of a changed plugin again).
        let rows = PluginFaultEndToEndTests.rows(try peer.request(["op": "snapshot", "feed": "flow"]))
        let missing = items.filter { rows[$0.id] == nil }.map(\.id)
        #expect(missing.isEmpty, "acked items without a row: \(missing.prefix(10))")
        let stale = items.filter { rows[$0.id]?["content"]?["v"] != .string(String(rounds)) }.map(\.id)
        #expect(stale.isEmpty, "rows not rendered again by the last build: \(stale.prefix(10))")

        // The delta that first showed each item carries the build that rendered it when it was
        // processed: one loaded when it was sent at the earliest, one already copied in by
        // its ack at the latest.
        let finalSeq = try #require(try peer.request(["op": "snapshot", "feed": "flow"])["seq"]?.numberValue)
        #expect(
            try eventually(timeout: 20) {
                deltas.get().contains { ($0["seq"]?.numberValue ?? 0) >= finalSeq }
            }, "the subscriber never saw seq \(finalSeq)")
        stop.set(true)
        #expect(subscriberDone.wait(timeout: .now() + 10) == .success, "the subscriber did not stop")
        #expect(subscriberErrors.get().isEmpty, "\(subscriberErrors.get())")
        let seen = deltas.get()
        let seqs = seen.compactMap { $0["seq"]?.numberValue }
        let gaps = zip(seqs, seqs.dropFirst()).filter { $0.1 != $0.0 + 1 }.map { "\(Int($0.0))->\(Int($0.1))" }
        #expect(
            seqs.first == 1 && gaps.isEmpty,
            "the subscriber did not see every delta once in order: first \(seqs.first ?? 0), last \(seqs.last ?? 0) of \(Int(finalSeq)), jumps \(gaps.prefix(10))"
        )
        var firstVersion: [String: String] = [:]
        for delta in seen {
            for row in Self.insertedRows(delta) where firstVersion[row.id] == nil { firstVersion[row.id] = row.version }
        }
        var wrong: [String] = []
        for item in items {
            guard let text = firstVersion[item.id], let version = Int(text) else {
                wrong.append("\(item.id): never inserted in a delta")
                continue
            }
            if version < item.loadedBefore || version > item.copiedByAck {
                wrong.append("\(item.id): build \(version), loaded \(item.loadedBefore)...\(item.copiedByAck)")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) items first rendered by another build: \(wrong.prefix(10))")
        // Items really flowed under every build: each one first rendered some of them.
        let renderingBuilds = Set(items.compactMap { firstVersion[$0.id].flatMap { Int($0) } })
        #expect(
            renderingBuilds == Set(0...rounds), "items were first rendered only by builds \(renderingBuilds.sorted())")
        #expect(try peer.request(["op": "quarantine"])["items"] == [])
        #expect(!daemon.log.contains("fatal"), "log:\n\(daemon.log)")
    }

    @Test(
        "a replacement that is refused keeps the loaded build serving, names the file, and does not block another plugin file's update",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(2)))
    func refusedReplacementKeepsServing() throws {
        let plugins = try FaultPlugin.directory(defines: ["FAULT_VERSION=\"1\""])
        let pluginFile = plugins.url.appendingPathComponent(FaultPlugin.fileName).path
        let otherFile = plugins.url.appendingPathComponent("librowcast-other.so").path
        try FaultPlugin.compile(
            to: otherFile, defines: ["FAULT_NAME=\"other\"", "FAULT_TYPE=\"other\"", "FAULT_VERSION=\"1\""])
        let daemon = try DaemonProcess(pluginDirectory: plugins, extraArguments: PluginFaultEndToEndTests.isolation())
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        #expect(try peer.request(PluginFaultEndToEndTests.upsert("kept", "before"))["ok"] == true)

        // The fault plugin's file becomes something that is no plugin, written in place; the
        // other plugin's file gets a new build in the same reload.
        try Data("not a shared library\n".utf8).write(to: URL(fileURLWithPath: pluginFile))
        let builds = try TemporaryDirectory("rowcast-fault-builds")
        let otherV2 = try FaultPlugin.compile(
            to: builds.path + "/other-2.so",
            defines: ["FAULT_NAME=\"other\"", "FAULT_TYPE=\"other\"", "FAULT_VERSION=\"2\""])
        try FaultPlugin.copyInPlace(otherV2, over: otherFile)
        let reload = try peer.request(["op": "reload"])
        #expect(daemon.process.isRunning, "rowcastd died; log:\n\(daemon.log)")
        let refusal = reload["refusals"]?.arrayValue?.first { $0["file"]?.stringValue == pluginFile }
        #expect(refusal != nil, "the broken file is not refused: \(reload)")
        #expect(refusal?["reason"]?.stringValue?.contains("version 1 loaded before keeps serving") == true, "\(reload)")

        // What the plugins listing shows: the refusal beside the build that still serves, and
        // the other file's new build.
        let listing = try peer.request(["op": "plugins"])
        #expect(Self.loadedVersion(listing) == "1", "\(listing)")
        #expect(listing["plugins"]?.arrayValue?.first { $0["name"] == "other" }?["version"] == "2", "\(listing)")
        #expect(
            listing["refusals"]?.arrayValue?.contains { $0["file"]?.stringValue == pluginFile } == true, "\(listing)")
        #expect(listing["types"]?[FaultPlugin.itemType]?["version"] == "1", "\(listing)")

        // Items of the refused plugin's type still render, with the build loaded before.
        #expect(try peer.request(PluginFaultEndToEndTests.upsert("kept", "after"))["ok"] == true)
        let rows = PluginFaultEndToEndTests.rows(try peer.request(["op": "snapshot", "feed": "kept"]))
        #expect(rows["before"]?["content"]?["v"] == "1")
        #expect(rows["after"]?["content"]?["v"] == "1")
        let otherAck = try peer.request(["op": "upsert", "feed": "kept", "item": ["id": "o", "type": "other"]])
        #expect(otherAck["ok"] == true, "\(otherAck)")
        #expect(
            PluginFaultEndToEndTests.rows(try peer.request(["op": "snapshot", "feed": "kept"]))["o"]?["content"]?["v"]
                == "2")

        // `rowcast plugins` shows both too, for a person.
        let command = try CommandRunner(["plugins", "--control", daemon.control])
        #expect(command.wait(timeout: 20) == 0, "\(command.stderr)")
        let text = command.stdout
        #expect(text.contains(FaultPlugin.fileName) && text.contains("keeps serving"), "\(text)")
        #expect(text.contains("other"), "\(text)")
    }

    @Test(
        "what a plugin prints to stdout and stderr reaches rowcastd's log with the plugin's name, never the render channel",
        .enabled(if: FaultPlugin.compiler != nil, "no C compiler"), .timeLimit(.minutes(1)))
    func pluginOutputIsLogged() throws {
        let plugins = try FaultPlugin.directory()
        let daemon = try DaemonProcess(pluginDirectory: plugins, extraArguments: PluginFaultEndToEndTests.isolation())
        defer { daemon.stop() }
        let peer = try RawPeer(daemon)
        let ack = try peer.request(PluginFaultEndToEndTests.upsert("chatty", "stdout"))
        #expect(ack["ok"] == true, "\(ack)")
        #expect(
            PluginFaultEndToEndTests.rows(try peer.request(["op": "snapshot", "feed": "chatty"]))["stdout"]?[
                "content"]?["v"] == "1")
        #expect(
            eventually(timeout: 10) {
                daemon.log.contains("fault plugin: stdout line 1 of 200")
                    && daemon.log.contains("fault plugin: stderr line 1 of 200")
            }, "log:\n\(daemon.log)")
        let lines = daemon.log.split(separator: "\n").filter { $0.contains("fault plugin: stdout line 1 of 200") }
        #expect(lines.allSatisfy { $0.contains("fault") && $0.contains("plugin output") }, "\(lines)")
    }
}
