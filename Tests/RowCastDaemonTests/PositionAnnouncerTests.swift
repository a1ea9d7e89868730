import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
@testable import RowCastDaemon
import Testing

/// When `position` events go out: once per interval for each feed that published deltas since
/// its last one, and at once for a subscription to exactly one feed's topic.
struct PositionAnnouncerTests {
    static func seqs(_ publications: [Publication]) -> [String] {
        publications.map { publication in
            let body = try! JSONParser.parse(publication.body)
            return "\(body["feed"]?.stringValue ?? "?")@\(Int(body["seq"]?.numberValue ?? -1))"
        }
    }

    @Test(
        "each feed with new deltas is announced once per interval, at its latest position; nothing when nothing changed"
    )
    func ticks() {
        let announcer = PositionAnnouncer()
        announcer.reset(to: [FeedPosition(feed: "quiet", epoch: "e", seq: 9)])
        let start = ContinuousClock.now
        #expect(announcer.nextTick(interval: .seconds(1)) == nil)
        announcer.record([
            FeedPosition(feed: "cars", epoch: "e", seq: 1), FeedPosition(feed: "bikes", epoch: "e", seq: 4),
        ])
        announcer.record([FeedPosition(feed: "cars", epoch: "e", seq: 2)])
        #expect(announcer.nextTick(interval: .seconds(1)) != nil)
        #expect(announcer.due(at: start, interval: .seconds(10)).isEmpty)
        #expect(Self.seqs(announcer.due(at: start + .seconds(11), interval: .seconds(10))) == ["cars@2", "bikes@4"])
        #expect(announcer.nextTick(interval: .seconds(10)) == nil)
        #expect(announcer.due(at: start + .seconds(30), interval: .seconds(10)).isEmpty)
    }

    @Test("a subscription to a feed's own topic gets its position; prefixes and unknown feeds get none")
    func subscriptions() throws {
        let announcer = PositionAnnouncer()
        announcer.reset(to: [FeedPosition(feed: "cars", epoch: "e1", seq: 7)])
        let position = try #require(announcer.announcement(forSubscription: Array("rows.cars".utf8) + [0]))
        #expect(position.topic == Array("rows.cars".utf8) + [0])
        #expect(try JSONParser.parse(position.body) == ["event": "position", "feed": "cars", "epoch": "e1", "seq": 7])
        #expect(announcer.announcement(forSubscription: Array("rows.".utf8)) == nil)
        #expect(announcer.announcement(forSubscription: Array("rows.car".utf8)) == nil)
        #expect(announcer.announcement(forSubscription: Array("rows.bikes".utf8) + [0]) == nil)
        #expect(announcer.announcement(forSubscription: []) == nil)
    }
}
