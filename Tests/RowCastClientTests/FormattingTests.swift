import RowCastClient
import RowCastKit
import Testing

/// The readable forms of snapshots, status and plugins replies.
@Suite struct FormattingTests {
    @Test func snapshotTableShowsSectionsAndRowSummaries() throws {
        let row: JSONValue = ["id": "42", "type": "product", "cell": "ProductImageCell", "height": 120,
                              "content": ["title": "Tesla Model 3", "subtitle": "Operated by Tesla", "price": "$39999", "image": "https://x"],
                              "actions": []]
        let banner: JSONValue = ["id": "7", "type": "ad", "cell": "Banner", "height": 60, "content": ["slot": "top", "weight": 2]]
        let reply = Fixture.snapshotReply(seq: 12, epoch: "7d0c", sections: [
            Fixture.section("default", rows: [row, banner]),
            Fixture.section("deals", rows: [], order: 1, header: ["title": "Deals"]),
        ])
        let lines = SnapshotTable().render(try FeedReplica(snapshot: reply), pending: 2)
        #expect(lines == [
            "feed cars  seq 12  epoch 7d0c  2 sections, 2 rows, 2 pending (no plugin yet)",
            "",
            "section default (2 rows)",
            "  ID  TYPE     CELL              HEIGHT  CONTENT",
            "  42  product  ProductImageCell  120     Tesla Model 3 · Operated by Tesla · $39999",
            "  7   ad       Banner            60      slot=top · weight=2",
            "",
            "section deals (0 rows)  order=1  header: Deals",
            "  (no rows)",
        ])
        #expect(SnapshotTable().render(FeedReplica(feed: "boats")) == [
            "feed boats  seq 0  epoch none  0 sections, 0 rows", "(the feed does not exist yet)",
        ])
    }

    @Test func statusAndPluginsReports() {
        let status: JSONValue = [
            "ok": true, "op": "status", "version": "0.1.0", "protocol": 1, "uptime": 3723,
            "feeds": [["feed": "cars", "seq": 12, "epoch": "7d0c", "sections": 1, "rows": 3, "items": 4, "pending": 1]],
            "plugins": 2, "counters": ["received": 10, "applied": 9, "rejected": 1, "published": 9],
            "endpoints": ["ingest": "tcp://127.0.0.1:7701", "control": "tcp://127.0.0.1:7702", "publish": "tcp://127.0.0.1:7703"],
        ]
        #expect(DaemonReport.status(status) == [
            "rowcastd 0.1.0 (protocol 1), up 1h 2m 3s",
            "endpoints  ingest=tcp://127.0.0.1:7701  control=tcp://127.0.0.1:7702  publish=tcp://127.0.0.1:7703",
            "counters   received=10  applied=9  rejected=1  published=9",
            "plugins    2",
            "FEED  SEQ  EPOCH  SECTIONS  ROWS  ITEMS  PENDING",
            "cars  12   7d0c   1         3     4      1",
        ])
        let plugins: JSONValue = [
            "ok": true, "op": "plugins",
            "plugins": [["name": "product", "version": "1.0.0", "file": "/p/librowcast-product.so", "itemTypes": ["product"], "headerTypes": []]],
            "types": [:], "refusals": [["file": "/p/librowcast-old.so", "reason": "ABI version 0, rowcastd speaks 1"]],
        ]
        #expect(DaemonReport.plugins(plugins) == [
            "NAME     VERSION  ITEM TYPES  HEADER TYPES  FILE",
            "product  1.0.0    product     -             /p/librowcast-product.so",
            "refused /p/librowcast-old.so: ABI version 0, rowcastd speaks 1",
        ])
    }

    @Test func reloadReport() {
        let reply: JSONValue = [
            "ok": true, "op": "reload", "config": "/etc/rowcast/rowcastd.yaml", "plugins": 2,
            "loaded": [["name": "advertising", "version": "1.1.0", "file": "/p/librowcast-advertising.so"]],
            "refusals": [["file": "/p/librowcast-old.so", "reason": "speaks ABI 99"]],
            "applied": ["log_level"], "restartRequired": ["endpoints.control"],
        ]
        #expect(DaemonReport.reload(reply) == [
            "reloaded configuration /etc/rowcast/rowcastd.yaml and plugins: 2 plugins loaded",
            "loaded advertising 1.1.0 from /p/librowcast-advertising.so",
            "applied: log_level",
            "needs a restart to apply: endpoints.control",
            "refused /p/librowcast-old.so: speaks ABI 99",
        ])
        #expect(DaemonReport.reload(["ok": true, "op": "reload", "config": nil, "plugins": 1, "loaded": [], "refusals": [], "applied": [], "restartRequired": []])
            == ["reloaded plugins: 1 plugin loaded"])
    }
}
