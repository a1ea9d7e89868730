import Foundation
@testable import RowCastEngine
import RowCastJSON
import RowCastPluginHosting
import RowCastStore
import Testing

/// Per-client feed quotas: a client may own at most its `max_feeds` feeds, counted over the
/// feeds its requests created and did not drop, across restarts.
struct FeedQuotaTests {
    /// Allows everything; quotas by client name.
    struct QuotaAccess: AccessCheck {
        let quotas: [String: Int]
        func allows(_ principal: String, _ permission: FeedPermission, feed: String?) -> Bool { true }
        func allowsEveryFeed(_ principal: String, _ permission: FeedPermission) -> Bool { true }
        func feedQuota(of principal: String) -> Int? { quotas[principal] }
    }

    func send(_ engine: Engine, _ request: JSONValue, from principal: String) -> JSONValue {
        let output = engine.process([
            IncomingMessage(origin: .control(replyTo: 1), body: request.serialized(), principal: principal)
        ])
        return try! JSONParser.parse(output.replies[0].body)
    }

    @Test("a client at its max_feeds cannot create another feed, others can; a drop frees its place")
    func quota() {
        let harness = EngineHarness()
        harness.engine.accessCheck = QuotaAccess(quotas: ["tenant": 2])
        #expect(send(harness.engine, upsert("t1", item("1")), from: "tenant")["ok"] == true)
        #expect(send(harness.engine, upsert("t2", item("1")), from: "tenant")["ok"] == true)
        let refused = send(harness.engine, upsert("t3", item("1")), from: "tenant")
        #expect(refused["error"]?["code"] == "limit_exceeded")
        #expect(refused["error"]?["limit"] == "max_feeds of client tenant")
        #expect(refused["error"]?["message"]?.stringValue?.contains("rowcast drop") == true)
        // Its existing feeds still take items, and another client's feeds do not count.
        #expect(send(harness.engine, upsert("t1", item("2")), from: "tenant")["ok"] == true)
        #expect(send(harness.engine, upsert("o1", item("1")), from: "other")["ok"] == true)
        #expect(send(harness.engine, ["op": "drop", "feed": "t1"], from: "tenant")["ok"] == true)
        #expect(send(harness.engine, upsert("t3", item("1")), from: "tenant")["ok"] == true)
    }

    @Test(
        "engines sharing their owners' counts (several loops) apply one quota to a client's feeds on both; a request refused after its check gives its place back"
    )
    func quotaOverLoops() {
        let owners = FeedOwnerCounts()
        let first = EngineHarness()
        let second = EngineHarness()
        for harness in [first, second] {
            harness.engine.accessCheck = QuotaAccess(quotas: ["tenant": 3])
            harness.engine.sharedOwners = owners
        }
        #expect(send(first.engine, upsert("t1", item("1")), from: "tenant")["ok"] == true)
        #expect(send(second.engine, upsert("t2", item("1")), from: "tenant")["ok"] == true)
        #expect(owners.count(of: "tenant") == 2)
        // The first engine's own limit refuses t3 after the quota's check took a place: the
        // place comes back, so the second engine may still create a feed.
        first.engine.limits.feeds = 1
        let full = send(first.engine, upsert("t3", item("1")), from: "tenant")
        #expect(full["error"]?["limit"] == "limits.max_feeds", "\(full)")
        #expect(owners.count(of: "tenant") == 2)
        #expect(send(second.engine, upsert("t4", item("1")), from: "tenant")["ok"] == true)
        let refused = send(first.engine, upsert("t5", item("1")), from: "tenant")
        #expect(refused["error"]?["limit"] == "max_feeds of client tenant", "\(refused)")
        #expect(refused["error"]?["message"]?.stringValue?.contains("has created 3 feeds") == true)
        #expect(send(second.engine, ["op": "drop", "feed": "t2"], from: "tenant")["ok"] == true)
        first.engine.limits.feeds = 10
        #expect(send(first.engine, upsert("t5", item("1")), from: "tenant")["ok"] == true)
        #expect(owners.count(of: "tenant") == 3)
        #expect(first.engine.ownedFeeds["tenant"] == 2 && second.engine.ownedFeeds["tenant"] == 1)
    }

    @Test("owners are stored: after a restart the client's feeds still count")
    func ownersSurviveRestart() throws {
        let directory = try ScratchDirectory()
        func start() throws -> (EngineHarness, DurableEngine) {
            let harness = EngineHarness()
            harness.engine.accessCheck = QuotaAccess(quotas: ["tenant": 1])
            let durable = DurableEngine(
                engine: harness.engine, store: try SQLiteFeedStore(directory: directory.path, synchronous: .normal))
            _ = try durable.start()
            return (harness, durable)
        }
        func send(_ durable: DurableEngine, _ request: JSONValue) throws -> JSONValue {
            let output = try durable.process([
                IncomingMessage(origin: .control(replyTo: 1), body: request.serialized(), principal: "tenant")
            ])
            return try JSONParser.parse(output.replies[0].body)
        }
        var (harness, durable) = try start()
        #expect(try send(durable, upsert("t1", item("1")))["ok"] == true)
        durable.close()
        (harness, durable) = try start()
        #expect(harness.engine.feeds["t1"]?.owner == "tenant")
        #expect(try send(durable, upsert("t2", item("1")))["error"]?["code"] == "limit_exceeded")
        durable.close()
    }
}
