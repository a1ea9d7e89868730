import Foundation
import RowCastJSON
import Testing

/// A real rowcastd process with the real plugins, over real tcp sockets on loopback.
@Suite(.serialized)
struct DaemonEndToEndTests {
    static func product(
        _ id: String, name: String = "Tesla Model 3", price: Double = 39999, section: String? = nil
    ) -> JSONValue {
        var item: JSONObject = [
            "id": .string(id), "type": "product",
            "data": [
                "name": .string(name), "operatedBy": "Tesla", "price": .number(price),
                "image": .string("https://img/\(id).png"),
            ],
        ]
        if let section { item["section"] = .string(section) }
        return .object(item)
    }

    static func advertising(_ id: String) -> JSONValue {
        [
            "id": .string(id), "type": "advertising", "section": "ads",
            "data": [
                "name": "Garage Sale", "operatedBy": "Bob", "price": 10, "image": "https://img/ad.png",
                "url": .string("https://ads.example/\(id)"),
            ],
        ]
    }

    @Test("both real plugins load and are listed")
    func pluginsListed() throws {
        let daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        let reply = try peer.request(["op": "plugins"])
        #expect(reply["ok"] == true)
        #expect(reply["types"]?["product"]?["plugin"] == "product")
        #expect(reply["types"]?["advertising"]?["plugin"] == "advertising")
        #expect(reply["refusals"] == [])
    }

    @Test("a product and an advertising item are rendered, published and in the snapshot")
    func renderAndPublish() throws {
        let daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        try peer.subscribe([Array("rows.cars".utf8) + [0]])
        let ack = try peer.request(["op": "upsert", "feed": "cars", "item": Self.product("42")])
        #expect(ack["ok"] == true)
        #expect(ack["seq"] == 1)
        let delta = try peer.delta(feed: "cars", seq: 1)
        let row = try #require(delta["sections"]?["inserted"]?.arrayValue?.first?["rows"]?.arrayValue?.first)
        #expect(
            row == [
                "id": "42", "type": "product", "cell": "ProductImageCell", "height": 120,
                "content": [
                    "title": "Tesla Model 3", "subtitle": "Operated by Tesla", "price": "$39999",
                    "image": "https://img/42.png",
                ],
                "actions": [["name": "select", "kind": "show_detail", "params": ["id": "42"]]],
            ])
        _ = try peer.request(["op": "upsert", "feed": "cars", "item": Self.advertising("ad1")])
        let snapshot = try peer.request(["op": "snapshot", "feed": "cars"])
        #expect(snapshot["seq"] == 2)
        let sections = try #require(snapshot["sections"]?.arrayValue)
        #expect(sections.map { $0["id"] } == ["default", "ads"])
        #expect(sections[1]["rows"]?.arrayValue?.first?["cell"] == "AdvertisingCell")
        #expect(
            sections[1]["rows"]?.arrayValue?.first?["actions"] == [
                ["name": "select", "kind": "open_url", "params": ["url": "https://ads.example/ad1"]]
            ])
    }

    @Test("the daemon's threads carry the names docs/OPERATIONS.md gives them")
    func threadNames() throws {
        let daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        // Every thread is there once a first request is answered (the commit thread from the
        // start, though at a trickle the loop writes the commits itself).
        #expect(try peer.request(["op": "upsert", "feed": "cars", "item": Self.product("1")])["ok"] == true)
        let tasks = "/proc/\(daemon.process.processIdentifier)/task"
        let names = try FileManager.default.contentsOfDirectory(atPath: tasks).compactMap { task in
            try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines)
        }
        for name in ["rowcastd-loop", "rowcast-commit", "rowcast-checkpt"] {
            #expect(names.contains(name), "no thread \(name) among \(names.sorted())")
        }
    }

    @Test("a missing or mistyped field is an item error naming the field")
    func itemErrors() throws {
        let daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        let missing = try peer.request([
            "op": "upsert", "feed": "cars",
            "item": ["id": "1", "type": "product", "data": ["name": "X", "operatedBy": "Y", "image": "i"]],
        ])
        #expect(missing["ok"] == false)
        #expect(missing["error"]?["code"] == "missing_field")
        #expect(missing["error"]?["field"] == "price")
        let mistyped = try peer.request([
            "op": "upsert", "feed": "cars",
            "item": [
                "id": "1", "type": "product", "data": ["name": "X", "operatedBy": "Y", "image": "i", "price": "cheap"],
            ],
        ])
        #expect(mistyped["error"]?["code"] == "invalid_field")
        #expect(mistyped["error"]?["field"] == "price")
        #expect(try peer.request(["op": "snapshot", "feed": "cars"])["seq"] == 0)
    }

    @Test("bad pushes get error events while good ones keep flowing")
    func badInputOverPush() throws {
        let daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        try peer.subscribe([Array("rows.cars".utf8) + [0], Array("errors".utf8)])
        let bad: [[UInt8]] = [
            Array("{not json".utf8),
            Array(#"{"op":"upsert","feed":"cars","item":{"type":"product"}}"#.utf8),
            Array(#"{"op":"fly","feed":"cars"}"#.utf8),
            Array(repeating: UInt8(ascii: "x"), count: (1 << 20) + 10),
        ]
        for (index, body) in bad.enumerated() {
            try peer.pushRaw(body)
            try peer.pushRaw(
                JSONValue.object(["op": "upsert", "feed": "cars", "item": Self.product("good\(index)")]).serialized())
        }
        var codes: [String] = []
        var goodSeen = 0
        while codes.count < bad.count || goodSeen < bad.count {
            let (topic, body) = try peer.receive { _, _ in true }
            if topic.hasPrefix("errors") { codes.append(body["code"]!.stringValue!) }
            if topic == "rows.cars" {
                goodSeen = Int(
                    try peer.request(["op": "snapshot", "feed": "cars"])["sections"]?.arrayValue?.first?["rows"]?
                        .arrayValue?.count ?? 0)
            }
        }
        #expect(codes == ["invalid_json", "missing_field", "unknown_op", "too_large"])
        #expect(goodSeen == bad.count)
    }

    @Test("a subscriber of feed car does not receive feed cars")
    func topicPrefixIsolation() throws {
        let daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        try peer.subscribe([Array("rows.car".utf8) + [0]])
        _ = try peer.request(["op": "upsert", "feed": "cars", "item": Self.product("1")])
        _ = try peer.request(["op": "upsert", "feed": "car", "item": Self.product("2")])
        let (topic, body) = try peer.receive { _, _ in true }
        #expect(topic == "rows.car")
        #expect(body["feed"] == "car")
    }

    @Test("SIGTERM stops the daemon with status 0")
    func gracefulStop() throws {
        let daemon = try DaemonProcess()
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 10) == 0)
    }

    @Test("an item waiting for its type is rendered after a plugin appears and SIGHUP")
    func reloadRendersPendingItems() throws {
        let daemon = try DaemonProcess(plugins: ["librowcast-product.so"])
        let peer = try RawPeer(daemon)
        try peer.subscribe([Array("rows.cars".utf8) + [0], Array("errors.cars".utf8) + [0]])
        let ack = try peer.request(["op": "upsert", "feed": "cars", "item": Self.advertising("ad1")])
        #expect(ack["warning"]?["code"] == "unknown_type")
        let (_, event) = try peer.receive { topic, _ in topic == "errors.cars" }
        #expect(event["code"] == "unknown_type")
        try FileManager.default.copyItem(
            atPath: try BuildProducts.path("librowcast-advertising.so"),
            toPath: daemon.pluginDirectory.url.appendingPathComponent("librowcast-advertising.so").path)
        daemon.signal(SIGHUP)
        let delta = try peer.delta(feed: "cars", seq: 1)
        #expect(delta["sections"]?["inserted"]?.arrayValue?.first?["rows"]?.arrayValue?.first?["id"] == "ad1")
    }

    @Test("the daemon refuses to start on a port in use, naming the endpoint")
    func portInUse() throws {
        let first = try DaemonProcess()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuildProducts.path("rowcastd"))
        let state = try TemporaryDirectory("rowcast-state")
        process.arguments = [
            "--ingest", first.ingest, "--control", "tcp://127.0.0.1:*", "--publish", "tcp://127.0.0.1:*", "--http",
            "tcp://127.0.0.1:0", "--plugins", first.pluginDirectory.path, "--state-dir", state.path,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { process.terminate() }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus != 0)
        #expect(text.contains(first.ingest))
        #expect(text.contains("in use"))
    }
}

/// Section headers rendered by a real Swift plugin through the ABI.
@Suite(.serialized)
struct SectionHeaderEndToEndTests {
    @Test("a sponsored section gets its header row from the advertising plugin; a bad header is refused")
    func sponsoredHeader() throws {
        let daemon = try DaemonProcess()
        let peer = try RawPeer(daemon)
        let ok = try peer.request([
            "op": "section", "feed": "cars",
            "section": ["id": "ads", "order": -1, "type": "sponsored", "header": ["title": "Deals of the week"]],
        ])
        #expect(ok["ok"] == true)
        let snapshot = try peer.request(["op": "snapshot", "feed": "cars"])
        let section = try #require(snapshot["sections"]?.arrayValue?.first)
        #expect(
            section["headerRow"] == [
                "cell": "SponsoredHeaderCell", "height": 44,
                "content": ["title": "Deals of the week", "subtitle": "Sponsored"], "actions": [],
            ])
        let bad = try peer.request([
            "op": "section", "feed": "cars",
            "section": ["id": "ads2", "type": "sponsored", "header": ["disclosure": "x"]],
        ])
        #expect(bad["error"]?["code"] == "missing_field")
        #expect(bad["error"]?["field"] == "title")
        let plugins = try peer.request(["op": "plugins"])
        #expect(plugins["plugins"]?.arrayValue?.first { $0["name"] == "advertising" }?["headerTypes"] == ["sponsored"])
    }
}
