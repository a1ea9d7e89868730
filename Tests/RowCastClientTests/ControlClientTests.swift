import RowCastClient
import RowCastJSON
import Testing

/// ControlClient, Publisher and Subscriber against a fake daemon on loopback.
@Suite struct ControlClientTests {
    @Test func replyIsMatchedByReqAndStaleRepliesAreSkipped() throws {
        let daemon = try FakeDaemon { request in
            FakeDaemon.Response(replies: [
                ["ok": true, "op": "status", "req": "someone else's", "version": "stale"],
                okReply(to: request, ["version": "1.0"]),
            ])
        }
        defer { daemon.stop() }
        let client = try ControlClient(endpoint: daemon.control, timeout: .seconds(10))
        let first = try client.status()
        let second = try client.status()
        #expect(first["version"] == "1.0")
        #expect(second["version"] == "1.0")
        #expect(first["req"] != second["req"])
        #expect(daemon.requests.map { $0["op"] } == ["status", "status"])
        #expect(daemon.requests.allSatisfy { $0["req"] != nil })
    }

    @Test func okFalseBecomesAnErrorWithCodeMessageAndField() throws {
        let daemon = try FakeDaemon { request in
            FakeDaemon.Response(replies: [
                [
                    "ok": false, "op": "upsert",
                    "error": [
                        "code": "missing_field", "message": "upsert: missing field \"item.id\"", "field": "item.id",
                    ],
                    "req": request["req"] ?? nil,
                ]
            ])
        }
        defer { daemon.stop() }
        let client = try ControlClient(endpoint: daemon.control, timeout: .seconds(10))
        let error = #expect(throws: RowCastClientError.self) {
            try client.upsert(feed: "cars", item: ["type": "product"])
        }
        #expect(error?.code == "missing_field")
        #expect(error?.field == "item.id")
        #expect(error?.description == #"missing_field: upsert: missing field "item.id""#)
        #expect(error?.reply?["ok"] == false)
    }

    @Test func silenceBecomesATimeoutNamingTheEndpoint() throws {
        let daemon = try FakeDaemon()  // never replies
        defer { daemon.stop() }
        let client = try ControlClient(endpoint: daemon.control, timeout: .milliseconds(100))
        let error = #expect(throws: RowCastClientError.self) { try client.snapshot(feed: "cars") }
        #expect(error?.code == "timeout")
        #expect(error?.message.contains(daemon.control) == true)
        #expect(error?.message.contains("may not be running") == true)
    }

    @Test func typedHelpersSendTheProtocolsRequests() throws {
        let daemon = try FakeDaemon { request in
            FakeDaemon.Response(replies: [
                okReply(to: request, ["feed": request["feed"] ?? nil, "seq": 7, "epoch": "e"])
            ])
        }
        defer { daemon.stop() }
        let client = try ControlClient(endpoint: daemon.control, timeout: .seconds(10), clientName: "tests")
        let item: JSONValue = ["id": "42", "type": "product"]
        let ack = try client.upsert(feed: "cars", item: item)
        #expect(ack.description == "ok cars seq=7")
        #expect(ack.seq == 7 && ack.epoch == "e")
        _ = try client.delete(feed: "cars", id: "42")
        _ = try client.section(feed: "cars", section: ["id": "deals", "order": 1])
        _ = try client.deleteSection(feed: "cars", id: "deals")
        _ = try client.reset(feed: "cars", items: [item], sections: [])
        _ = try client.snapshot(feed: "cars")
        _ = try client.status()
        _ = try client.plugins()
        _ = try client.select(feed: "cars", id: "42")
        let sent = daemon.requests.map { request -> JSONValue in
            guard var object = request.objectValue else { return request }
            #expect(object["client"] == "tests")
            object["req"] = nil
            object["client"] = nil
            return .object(object)
        }
        #expect(
            sent == [
                ["op": "upsert", "feed": "cars", "item": item],
                ["op": "delete", "feed": "cars", "id": "42"],
                ["op": "section", "feed": "cars", "section": ["id": "deals", "order": 1]],
                ["op": "delete_section", "feed": "cars", "id": "deals"],
                ["op": "reset", "feed": "cars", "items": [item], "sections": []],
                ["op": "snapshot", "feed": "cars", "chunked": true],
                ["op": "status"],
                ["op": "plugins"],
                ["op": "select", "feed": "cars", "id": "42", "action": "select"],
            ])
    }

    @Test func pipelinedRequestsAnswerInRequestOrder() throws {
        let daemon = try FakeDaemon { request in
            guard request["item"]?["id"] != "bad" else {
                return FakeDaemon.Response(replies: [
                    [
                        "ok": false, "op": "upsert", "req": request["req"] ?? nil,
                        "error": ["code": "invalid_field", "message": "bad item"],
                    ]
                ])
            }
            return FakeDaemon.Response(replies: [
                okReply(to: request, ["feed": "cars", "seq": request["item"]?["sort"] ?? nil])
            ])
        }
        defer { daemon.stop() }
        let client = try ControlClient(endpoint: daemon.control, timeout: .seconds(10))
        let requests = (0..<30).map { index in
            RowCastRequest.upsert(
                feed: "cars",
                item: ["id": .string(index == 17 ? "bad" : "i\(index)"), "type": "t", "sort": .number(Double(index))])
        }
        let results = client.requests(requests, window: 8)
        #expect(results.count == 30)
        for (index, result) in results.enumerated() {
            switch result {
            case .success(let reply): #expect(index != 17 && reply["seq"]?.numberValue == Double(index))
            case .failure(let error): #expect(index == 17 && error.code == "invalid_field")
            }
        }
    }

    @Test func publisherPushesOneFramePerRequest() throws {
        let daemon = try FakeDaemon()
        defer { daemon.stop() }
        let publisher = try Publisher(endpoint: daemon.ingest, timeout: .seconds(10))
        let requests: [JSONValue] = [
            RowCastRequest.delete(feed: "cars", id: "1"), RowCastRequest.delete(feed: "cars", id: "2"),
        ]
        for request in requests { try publisher.send(request) }
        #expect(eventually { daemon.ingested.count == 2 })
        #expect(daemon.ingested == requests)
        publisher.close(flushWithin: .zero)
        #expect(throws: RowCastClientError.self) { try publisher.send(["op": "status"]) }
    }

    @Test func subscriberFiltersByNulTerminatedTopic() throws {
        let daemon = try FakeDaemon()
        defer { daemon.stop() }
        let subscriber = try Subscriber(endpoint: daemon.publish)
        try subscriber.subscribe(.rows("car"))
        try subscriber.subscribe(.heartbeat)
        #expect(subscriber.topics.map(\.description) == [#"rows.car\0"#, #"heartbeat\0"#])
        daemon.setHeartbeating(true)
        var live = false
        while !live, let message = try subscriber.receive(timeout: .seconds(10)) { live = message.topic == "heartbeat" }
        #expect(live)
        daemon.setHeartbeating(false)
        daemon.publish("rows.cars", ["event": "delta", "feed": "cars"])
        daemon.publish("errors.car", ["event": "error"])
        daemon.publish("rows.car", ["event": "delta", "feed": "car"])
        var received: SubscriberMessage?
        while let message = try subscriber.receive(timeout: .seconds(10)) {
            if message.topic != "heartbeat" {
                received = message
                break
            }
        }
        #expect(received == SubscriberMessage(topic: "rows.car", body: ["event": "delta", "feed": "car"]))
        #expect(received?.isDelta == true && received?.event == "delta")
    }
}
