import Foundation
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
@testable import RowCastDaemon
import Testing

/// allow lines, glob patterns, and which subscriptions a client may make.
struct FeedPermissionTests {
    static func keyring(_ grants: [String: [String]]) throws -> ClientKeyring {
        var keyring = ClientKeyring()
        for (name, lines) in grants {
            let parsed = try lines.map { line in try FeedGrant.parse(line).get() }
            keyring.add(.init(name: name, publicKey: name, grants: parsed))
        }
        return keyring
    }

    @Test("allow lines: permissions, all, patterns (none means every feed), and a clear error for a wrong word")
    func parsing() throws {
        let grant = try FeedGrant.parse("publish,reset cars* team-?").get()
        #expect(grant.permissions == [.publish, .reset])
        #expect(grant.patterns == ["cars*", "team-?"])
        #expect(grant.allows(.reset, feed: "cars-eu") && grant.allows(.publish, feed: "team-a"))
        #expect(!grant.allows(.reset, feed: "payroll") && !grant.allows(.read, feed: "cars"))
        #expect(try FeedGrant.parse("all").get().permissions == Set(FeedPermission.allCases))
        #expect(try FeedGrant.parse("read").get().patterns == ["*"])
        guard case .failure(let problem) = FeedGrant.parse("write cars") else {
            Issue.record("write was accepted"); return
        }
        #expect(
            problem.message.contains(
                "\"write\" is not a permission; allowed: read, publish, reset, select, admin, act_as, all")
        )
    }

    @Test("each request needs its permission; admin ignores feed patterns; an unknown client may do nothing")
    func requests() throws {
        let access = KeyringAccess(keyring: try Self.keyring(["ops": ["admin"], "app": ["read,select cars"]]))
        #expect(access.allows("ops", .admin, feed: nil))
        #expect(!access.allows("app", .admin, feed: nil))
        #expect(access.allows("app", .select, feed: "cars") && !access.allows("app", .select, feed: "payroll"))
        #expect(!access.allows("ghost", .read, feed: "cars"))
        let reset = Request(op: "reset", feed: "cars", operation: .reset(items: [], sections: []))
        let refusal = try #require(access.refusal(of: reset, from: "app"))
        #expect(refusal.code == .forbidden)
        #expect(refusal.message.contains("lacks the reset permission on feed \"cars\""))
        #expect(
            access.refusal(
                of: Request(op: "snapshot", feed: "cars", operation: .snapshot(chunked: false, window: nil)),
                from: "app")
                == nil)
        // events and locate read the feed: allowed on cars, refused on payroll.
        for operation in [Request.Operation.events(after: 0, limit: 10), .locate(id: "1")] {
            #expect(access.refusal(of: Request(op: "events", feed: "cars", operation: operation), from: "app") == nil)
            let refused = access.refusal(of: Request(op: "events", feed: "payroll", operation: operation), from: "app")
            #expect(
                refused?.message.contains("lacks the read permission on feed \"payroll\"") == true,
                "\(String(describing: refused))")
        }
        // A select with a value (an edit, a delete) needs select, not publish.
        let edit = Request(op: "select", feed: "cars", operation: .select(id: "1", action: "edit", value: "x"))
        #expect(access.refusal(of: edit, from: "app") == nil)
        #expect(access.refusal(of: edit, from: "ops")?.message.contains("lacks the select permission") == true)
        // Naming a user needs act_as on the feed besides select.
        let asAlice = Request(
            op: "select", feed: "cars", operation: .select(id: "1", action: "select", value: nil, user: "alice"))
        let gate = KeyringAccess(
            keyring: try Self.keyring(["gw": ["read,select,act_as cars"], "app": ["read,select"]]))
        #expect(gate.refusal(of: asAlice, from: "gw") == nil)
        let refused = try #require(gate.refusal(of: asAlice, from: "app"))
        #expect(refused.code == .forbidden && refused.message.contains("may not act as user \"alice\""))
        #expect(refused.message.contains("act_as cars"))
        #expect(gate.refusal(of: edit, from: "app") == nil, "without a user, select alone is enough")
        // since reads; every step of a reset in parts needs reset.
        #expect(
            access.refusal(of: Request(op: "since", feed: "cars", operation: .since(epoch: "e", seq: 1)), from: "app")
                == nil)
        for (op, operation) in [
            ("reset_begin", Request.Operation.resetBegin),
            ("reset_append", .resetAppend(token: "t", part: 0, items: [], sections: [])),
            ("reset_commit", .resetCommit(token: "t")),
        ] {
            let refused = access.refusal(of: Request(op: op, feed: "cars", operation: operation), from: "app")
            #expect(
                refused?.message.contains("lacks the reset permission") == true, "\(op): \(String(describing: refused))"
            )
        }
    }

    @Test(
        "subscriptions: exact per-feed topics need read on the feed, heartbeats are free, other prefixes need read on *"
    )
    func subscriptions() throws {
        let access = KeyringAccess(keyring: try Self.keyring(["app": ["read cars"], "all": ["read *"]]))
        func allows(_ prefix: String, _ terminated: Bool, _ who: String) -> Bool {
            SubscriptionFilter.allows(Array(prefix.utf8) + (terminated ? [0] : []), principal: who, access: access)
        }
        #expect(
            allows("rows.cars", true, "app") && allows("errors.cars", true, "app")
                && allows("actions.cars", true, "app"))
        #expect(!allows("rows.payroll", true, "app"))
        #expect(allows("heartbeat", true, "app") && allows("heart", false, "app"))
        #expect(
            !allows("rows.car", false, "app") && !allows("rows.", false, "app") && !allows("errors", false, "app")
                && !allows("", false, "app"))
        #expect(allows("rows.", false, "all") && allows("", false, "all"))
    }
}
