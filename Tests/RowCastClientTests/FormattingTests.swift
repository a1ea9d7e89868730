import RowCastClient
import RowCastJSON
import Testing

/// The readable forms of snapshots, status, plugins and quarantine replies.
@Suite struct FormattingTests {
    @Test func snapshotTableShowsSectionsAndRowSummaries() throws {
        let row: JSONValue = [
            "id": "42", "type": "product", "cell": "ProductImageCell", "height": 120,
            "content": [
                "title": "Tesla Model 3", "subtitle": "Operated by Tesla", "price": "$39999", "image": "https://x",
            ],
            "actions": [],
        ]
        let banner: JSONValue = [
            "id": "7", "type": "ad", "cell": "Banner", "height": 60, "content": ["slot": "top", "weight": 2],
        ]
        let reply = Fixture.snapshotReply(
            seq: 12, epoch: "7d0c",
            sections: [
                Fixture.section("default", rows: [row, banner]),
                Fixture.section("deals", rows: [], order: 1, header: ["title": "Deals"]),
            ])
        let lines = SnapshotTable().render(try FeedReplica(snapshot: reply), pending: 2)
        #expect(
            lines == [
                "feed cars  seq 12  epoch 7d0c  2 sections, 2 rows, 2 pending (no row: no plugin yet, or quarantined)",
                "",
                "section default (2 rows)",
                "  ID  TYPE     CELL              HEIGHT  CONTENT",
                "  42  product  ProductImageCell  120     Tesla Model 3 · Operated by Tesla · $39999",
                "  7   ad       Banner            60      slot=top · weight=2",
                "",
                "section deals (0 rows)  order=1  header: Deals",
                "  (no rows)",
            ])
        #expect(
            SnapshotTable().render(FeedReplica(feed: "boats")) == [
                "feed boats  seq 0  epoch none  0 sections, 0 rows", "(the feed does not exist yet)",
            ])
    }

    @Test("a feed whose items all wait for a plugin exists at seq 0: its table says so, not that it is missing")
    func snapshotTableOfPendingFeed() throws {
        let reply = Fixture.snapshotReply(seq: 0, epoch: "af36", sections: [])
        #expect(
            SnapshotTable().render(try FeedReplica(snapshot: reply), pending: 3) == [
                "feed cars  seq 0  epoch af36  0 sections, 0 rows, 3 pending (no row: no plugin yet, or quarantined)",
                "(no rows yet: every item of the feed is pending)",
            ])
        #expect(
            SnapshotTable().render(try FeedReplica(snapshot: reply)) == [
                "feed cars  seq 0  epoch af36  0 sections, 0 rows", "(no sections)",
            ])
    }

    @Test func statusAndPluginsReports() {
        let status: JSONValue = [
            "ok": true, "op": "status", "version": "0.1.0", "protocol": 1, "uptime": 3723,
            "feeds": [
                ["feed": "cars", "seq": 12, "epoch": "7d0c", "sections": 1, "rows": 3, "items": 4, "pending": 1]
            ],
            "plugins": 2, "counters": ["received": 10, "applied": 9, "rejected": 1, "published": 9],
            "endpoints": [
                "ingest": "tcp://127.0.0.1:7701", "control": "tcp://127.0.0.1:7702", "publish": "tcp://127.0.0.1:7703",
            ],
        ]
        #expect(
            DaemonReport.status(status) == [
                "rowcastd 0.1.0 (protocol 1), up 1h 2m 3s",
                "endpoints  ingest=tcp://127.0.0.1:7701  control=tcp://127.0.0.1:7702  publish=tcp://127.0.0.1:7703",
                "counters   received=10  applied=9  rejected=1  published=9",
                "plugins    2",
                "FEED  SEQ  EPOCH  SECTIONS  ROWS  ITEMS  PENDING",
                "cars  12   7d0c   1         3     4      1",
            ])
        let plugins: JSONValue = [
            "ok": true, "op": "plugins",
            "plugins": [
                [
                    "name": "product", "version": "1.0.0", "file": "/p/librowcast-product.so", "itemTypes": ["product"],
                    "headerTypes": [],
                ]
            ],
            "types": [:], "refusals": [["file": "/p/librowcast-old.so", "reason": "ABI version 0, rowcastd speaks 1"]],
        ]
        #expect(
            DaemonReport.plugins(plugins) == [
                "NAME     VERSION  ITEM TYPES  HEADER TYPES  FILE",
                "product  1.0.0    product     -             /p/librowcast-product.so",
                "refused /p/librowcast-old.so: ABI version 0, rowcastd speaks 1",
            ])
    }

    @Test(
        "a cluster node's status shows its tokens, and each node's endpoints, partitions, plugins and CURVE server key")
    func clusterReport() {
        let node: (String, JSONValue, Bool) -> JSONValue = { name, key, differs in
            [
                "name": .string(name), "control": .string("tcp://\(name):7702"),
                "publish": .string("tcp://\(name):7703"), "heartbeatAgeMs": 120,
                "partitions": [0, 1, 2, 5], "pluginsDiffer": false, "serverKey": key,
                "serverKeyDiffers": .bool(differs),
            ]
        }
        let status: JSONValue = [
            "ok": true, "version": "0.1.0", "protocol": 1, "uptime": 5,
            "curve": [
                "serverKey": "K", "clients": ["alice"], "refused": 0, "refusedSubscriptions": 0, "admittedNodes": 2,
            ],
            "cluster": [
                "node": "a", "leaseMs": 3000, "unowned": 0, "forwarding": 0,
                "held": [
                    ["partition": 0, "token": 1], ["partition": 1, "token": 1], ["partition": 2, "token": 1],
                    ["partition": 5, "token": 3],
                ],
                "nodes": [node("a", "K", false), node("b", "L", true), node("c", .null, true)],
            ],
        ]
        let lines = DaemonReport.status(status)
        #expect(lines.contains { $0.hasPrefix("curve") && $0.hasSuffix("admittedNodes=2") }, "\(lines)")
        let rows = lines.filter { $0.hasPrefix("a ") || $0.hasPrefix("b ") || $0.hasPrefix("c ") }
        #expect(lines.contains { $0.hasPrefix("NODE") && $0.hasSuffix("CURVE") }, "\(lines)")
        #expect(rows.map { $0.split(separator: " ").last.map(String.init) } == ["same", "DIFFER", "DIFFER"], "\(rows)")
        #expect(lines.contains("tokens     token 1: 0-2  token 3: 5"), "\(lines)")
        #expect(rows.first?.contains("tcp://a:7703") == true, "\(rows)")
    }

    @Test func reloadReport() {
        let reply: JSONValue = [
            "ok": true, "op": "reload", "config": "/etc/rowcast/rowcastd.yaml", "plugins": 2,
            "loaded": [["name": "advertising", "version": "1.1.0", "file": "/p/librowcast-advertising.so"]],
            "refusals": [["file": "/p/librowcast-old.so", "reason": "speaks ABI 99"]],
            "applied": ["log_level"], "restartRequired": ["endpoints.control"],
        ]
        #expect(
            DaemonReport.reload(reply) == [
                "reloaded configuration /etc/rowcast/rowcastd.yaml, plugins and cells: 2 plugins in use",
                "loaded advertising 1.1.0 from /p/librowcast-advertising.so",
                "applied: log_level",
                "needs a restart to apply: endpoints.control",
                "refused /p/librowcast-old.so: speaks ABI 99",
            ])
        #expect(
            DaemonReport.reload([
                "ok": true, "op": "reload", "config": nil, "plugins": 1, "loaded": [], "refusals": [], "applied": [],
                "restartRequired": [],
            ])
                == ["reloaded plugins and cells: 1 plugin in use"])
    }

    @Test("a reload after a cell file changed names the cells it took in and the feeds rendered again")
    func reloadReportOfCells() {
        let reply: JSONValue = [
            "ok": true, "op": "reload", "config": nil, "plugins": 0, "loaded": [], "refusals": [], "cells": 3,
            "loadedCells": [["cell": "ArticleCell", "file": "/c/articles.yaml", "line": 4]],
            "cell_refusals": ["/c/bad.yaml:2: height: not a number"],
            "rerendered": [["feed": "articles", "seq": 7], ["feed": "news", "seq": 1200]],
            "applied": [], "restartRequired": [],
        ]
        #expect(
            DaemonReport.reload(reply) == [
                "reloaded plugins and cells: 0 plugins and 3 cells in use",
                "loaded cell ArticleCell from /c/articles.yaml:4",
                "rows rendered again in: articles (now seq 7), news (now seq 1,200)",
                "refused cell file /c/bad.yaml:2: height: not a number",
            ])
        let unchanged: JSONValue = [
            "ok": true, "op": "reload", "config": nil, "plugins": 0, "loaded": [], "refusals": [], "cells": 1,
            "loadedCells": [], "cell_refusals": [], "rerendered": [], "applied": [], "restartRequired": [],
        ]
        #expect(
            DaemonReport.reload(unchanged) == [
                "reloaded plugins and cells: 0 plugins and 1 cell in use", "no row changed",
            ])
    }

    @Test func pluginHostsShowTheLastFaultWithItsTimeAndAPause() {
        let hosts: JSONValue = [
            [
                "plugin": "product", "version": "1.0.0", "file": "/p/librowcast-product.so", "pid": 4242,
                "state": "backoff",
                "restarts": 1, "rendered": 120345, "faults": 1,
                "lastFault": [
                    "code": "plugin_crashed", "reason": "killed by signal 11 (SIGSEGV)", "item": "42",
                    "at": 1795650067123,
                ],
                "pausedFor": 750,
            ],
            [
                "plugin": "advertising", "version": "1.1.0", "file": "/p/librowcast-advertising.so", "pid": 4243,
                "state": "restarting",
                "restarts": 0, "rendered": 12, "faults": 0, "lastFault": nil,
            ],
        ]
        let plugins: JSONValue = [
            "ok": true, "op": "plugins", "isolation": "process",
            "plugins": [
                [
                    "name": "product", "version": "1.0.0", "file": "/p/librowcast-product.so", "itemTypes": ["product"],
                    "headerTypes": [],
                ]
            ],
            "types": [:], "refusals": [], "hosts": hosts,
        ]
        let hostLines = [
            "HOST         PID   STATE       RESTARTS  RENDERED  FAULTS",
            "product      4242  backoff     1         120,345   1",
            "advertising  4243  restarting  0         12        0",
            "last fault of product at 2026-11-25T23:41:07Z: plugin_crashed on item 42: killed by signal 11 (SIGSEGV)",
            "product is paused for 750 ms more after faults in a row: its requests are refused with plugin_unavailable",
        ]
        #expect(
            DaemonReport.plugins(plugins) == [
                "NAME     VERSION  ITEM TYPES  HEADER TYPES  FILE",
                "product  1.0.0    product     -             /p/librowcast-product.so",
                "isolation: process",
            ] + hostLines)
        // `status` shows the same hosts, from `pluginHosts`.
        let status: JSONValue = [
            "ok": true, "op": "status", "version": "0.1.0", "protocol": 1, "uptime": 5, "feeds": [],
            "pluginHosts": hosts,
        ]
        #expect(DaemonReport.status(status) == ["rowcastd 0.1.0 (protocol 1), up 5s"] + hostLines + ["no feeds yet"])
    }

    @Test func pluginHostsShowTheirConfinementAndItsGaps() {
        let hosts: JSONValue = [
            [
                "plugin": "product", "version": "1.0.0", "file": "/p/librowcast-product.so", "pid": 4242,
                "state": "running", "restarts": 0, "rendered": 3, "faults": 0, "lastFault": nil,
                "confinement": [
                    "measures": ["seccomp", "landlock ABI 7", "process group"],
                    "gaps": ["network namespace: not permitted (rowcastd is not root)"],
                ],
            ]
        ]
        let status: JSONValue = [
            "ok": true, "op": "status", "version": "0.1.0", "protocol": 1, "uptime": 5, "feeds": [],
            "pluginHosts": hosts,
        ]
        #expect(
            DaemonReport.status(status) == [
                "rowcastd 0.1.0 (protocol 1), up 5s",
                "HOST     PID   STATE    RESTARTS  RENDERED  FAULTS",
                "product  4242  running  0         3         0",
                "confinement of product: seccomp, landlock ABI 7, process group",
                "product not confined by network namespace: not permitted (rowcastd is not root)",
                "no feeds yet",
            ])
    }

    @Test func utcTimestamps() {
        #expect(UTCTimestamp.iso8601(unixMilliseconds: 0) == "1970-01-01T00:00:00Z")
        #expect(UTCTimestamp.iso8601(unixMilliseconds: 1795650067999) == "2026-11-25T23:41:07Z")
        #expect(UTCTimestamp.iso8601(unixMilliseconds: 1835395200000) == "2028-02-29T00:00:00Z")
        #expect(UTCTimestamp.iso8601(unixMilliseconds: -500) == "1969-12-31T23:59:59Z")
        #expect(UTCTimestamp.iso8601(unixMilliseconds: 253_402_300_799_000) == "9999-12-31T23:59:59Z")
        #expect(UTCTimestamp.iso8601(unixMilliseconds: -62_135_596_800_000) == "0001-01-01T00:00:00Z")
        #expect(UTCTimestamp.iso8601(unixMilliseconds: 253_402_300_800_000) == nil)
        #expect(UTCTimestamp.iso8601(unixMilliseconds: .nan) == nil)
    }

    @Test func quarantineReport() {
        let item: JSONValue = [
            "feed": "cars", "id": "42", "type": "product", "code": "plugin_crashed",
            "message": "killed by signal 11 (SIGSEGV)",
            "plugin": "product", "file": "/p/librowcast-product.so", "at": 1795650067123,
        ]
        #expect(
            DaemonReport.quarantine(["ok": true, "op": "quarantine", "items": [item]]) == [
                "FEED  ID  TYPE     CODE            PLUGIN   SINCE (UTC)           REASON",
                "cars  42  product  plugin_crashed  product  2026-11-25T23:41:07Z  killed by signal 11 (SIGSEGV)",
            ])
        #expect(
            DaemonReport.quarantine(["ok": true, "op": "quarantine", "retried": 3, "items": []]) == [
                "retried 3 item(s)", "no items in quarantine",
            ])
    }
}
