import RowCastClient
import RowCastJSON
import Testing

/// ControlClient's select with a value, events and locate against a fake daemon: what goes
/// on the wire and how the replies are read.
@Suite struct ControlClientActionTests {
    @Test func selectSendsTheValueAndEventsAndLocateReadTheirReplies() throws {
        let daemon = try FakeDaemon { request in
            switch request["op"]?.stringValue {
            case "events":
                return FakeDaemon.Response(replies: [
                    okReply(
                        to: request,
                        [
                            "feed": "inbox", "after": 4, "last": 9, "first": 3, "covered": true, "more": true,
                            "events": [
                                ["event": "action", "eventSeq": 5, "action": "delete"],
                                ["event": "action", "eventSeq": 6, "action": "select"],
                            ],
                        ])
                ])
            case "locate":
                return FakeDaemon.Response(replies: [
                    okReply(
                        to: request,
                        [
                            "feed": "inbox", "id": "m7", "section": 1, "row": 4, "sectionId": "today", "seq": 12,
                            "epoch": "e1",
                        ])
                ])
            default:
                return FakeDaemon.Response(replies: [
                    okReply(to: request, ["feed": "inbox", "seq": 3, "change": "update", "eventSeq": 2])
                ])
            }
        }
        defer { daemon.stop() }
        let client = try ControlClient(endpoint: daemon.control, timeout: .seconds(10))
        let reply = try client.select(feed: "inbox", id: "m7", action: "edit_subject", value: "Hello")
        #expect(reply["change"] == "update")
        let page = try client.events(feed: "inbox", after: 4, limit: 2)
        #expect(page.events.count == 2)
        #expect(page.nextAfter == 6)
        #expect(page.more && page.covered)
        #expect(page.last == 9 && page.first == 3)
        let location = try client.locate(feed: "inbox", id: "m7")
        #expect(
            location.section == 1 && location.row == 4 && location.sectionID == "today" && location.seq == 12
                && location.epoch == "e1")
        let sent = daemon.requests
        #expect(sent[0]["value"] == "Hello" && sent[0]["action"] == "edit_subject")
        #expect(sent[1]["after"] == 4 && sent[1]["limit"] == 2)
        #expect(sent[2]["op"] == "locate" && sent[2]["id"] == "m7")
    }

    @Test func aReplyWithoutItsMembersIsAClearError() throws {
        let daemon = try FakeDaemon { request in FakeDaemon.Response(replies: [okReply(to: request, ["feed": "inbox"])])
        }
        defer { daemon.stop() }
        let client = try ControlClient(endpoint: daemon.control, timeout: .seconds(10))
        let events = #expect(throws: RowCastClientError.self) { try client.events(feed: "inbox") }
        #expect(events?.code == "invalid_reply")
        let locate = #expect(throws: RowCastClientError.self) { try client.locate(feed: "inbox", id: "x") }
        #expect(locate?.code == "invalid_reply")
    }
}
