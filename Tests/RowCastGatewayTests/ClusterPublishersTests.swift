import RowCastJSON
import Testing

@testable import RowCastGateway

/// Which publishers a gateway follows besides its own, read from a `status` reply.
struct ClusterPublishersTests {
    @Test("the other nodes' publish endpoints, without the node asked, its own endpoint or empty ones")
    func otherPublishers() {
        let status: JSONValue = [
            "ok": true,
            "cluster": [
                "node": "n1",
                "nodes": [
                    ["name": "n1", "publish": "tcp://10.0.0.1:7703"],
                    ["name": "n2", "publish": "tcp://10.0.0.2:7703"],
                    ["name": "n3", "publish": "tcp://gateway.local:7703"],
                    ["name": "n4", "publish": ""],
                    ["name": "n5", "publish": nil],
                    ["name": "n6", "publish": "tcp://10.0.0.6:7703"],
                ],
            ],
        ]
        #expect(
            ClusterPublishers.otherPublishers(in: status, besides: "tcp://gateway.local:7703")
                == ["tcp://10.0.0.2:7703", "tcp://10.0.0.6:7703"])
        #expect(ClusterPublishers.otherPublishers(in: ["ok": true], besides: "tcp://127.0.0.1:7703").isEmpty)
    }

    @Test("the feed name asked after sorts after every feed name the protocol allows")
    func afterEveryFeed() {
        #expect(FeedNameRule.isValid(ClusterPublishers.afterEveryFeed))
        for name in ["zzz", "z", "Z" + String(repeating: "z", count: 127), "a.b-c_9"] {
            #expect(name < ClusterPublishers.afterEveryFeed)
        }
    }
}
