import RowCastClient
import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import RowCastWire
import Testing

/// One wire model: what rowcastd encodes (RowCastEngine's `FeedDelta`, bytes) is what a client
/// decodes (RowCastClient's `FeedDelta`, parsed), because both are RowCastWire's `FeedDelta`.
@Suite struct WireModelTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A delta that uses every list.
    static var encoded: RowCastEngine.FeedDelta {
        var delta = RowCastEngine.FeedDelta()
        let section = bytes(#"{"id":"deals","order":1,"type":null,"header":null,"headerRow":null}"#)
        delta.deletedSections = [.init(id: "old", at: 2)]
        delta.insertedSections = [
            .init(id: "deals", at: 0, section: section, rows: [bytes(#"{"id":"r0","cell":"C"}"#)])
        ]
        delta.movedSections = [.init(id: "used", from: 0, to: 1)]
        delta.updatedSections = [
            .init(
                id: "used", at: 1,
                section: bytes(#"{"id":"used","order":2,"type":null,"header":null,"headerRow":null}"#))
        ]
        delta.deletedRows = [.init(id: "7", at: RowIndexPath(section: 1, row: 3))]
        delta.insertedRows = [
            .init(id: "8", at: RowIndexPath(section: 1, row: 0), row: bytes(#"{"id":"8","cell":"C","height":120}"#))
        ]
        delta.movedRows = [.init(id: "9", from: RowIndexPath(section: 1, row: 1), to: RowIndexPath(section: 2, row: 4))]
        delta.reconfiguredRows = [
            .init(id: "10", at: RowIndexPath(section: 2, row: 0), row: bytes(#"{"id":"10","cell":"C"}"#))
        ]
        delta.reloadedRows = [
            .init(id: "11", at: RowIndexPath(section: 2, row: 2), row: bytes(#"{"id":"11","cell":"D"}"#))
        ]
        return delta
    }

    @Test("a delta encoded by rowcastd decodes in the client to the same FeedDelta, list by list")
    func roundTrip() throws {
        let original = Self.encoded
        let wire = DeltaEncoder.encode(original, feed: "cars", epoch: "7d0c", seq: 13)
        let decoded = try RowCastClient.FeedDelta(json: try JSONParser.parse(wire))
        #expect(decoded.feed == "cars" && decoded.epoch == "7d0c" && decoded.seq == 13)
        var expected = original
        expected.feed = "cars"
        expected.epoch = "7d0c"
        expected.seq = 13
        // The client keeps a section without `rows`; rows as parsed values.
        let back: RowCastEngine.FeedDelta = try decoded.mapPayload(
            section: { JSONValue.object($0).serialized() },
            row: { $0.serialized() })
        let reparsed: RowCastEngine.FeedDelta = try expected.mapPayload(
            section: { try JSONParser.parse($0).serialized() }, row: { try JSONParser.parse($0).serialized() })
        #expect(back == reparsed)
    }

    @Test("both ends name one type: the client's and the engine's deltas are specialisations of RowCastWire.FeedDelta")
    func oneType() {
        #expect(RowCastClient.FeedDelta.self == RowCastWire.FeedDelta<ParsedPayload>.self)
        #expect(RowCastEngine.FeedDelta.self == RowCastWire.FeedDelta<EncodedPayload>.self)
        #expect(RowCastClient.RowIndexPath.self == RowCastEngine.IndexPath.self)
        #expect(RowIndexPath(section: 1, row: 2) < RowIndexPath(section: 2, row: 0))
        #expect(RowIndexPath(section: 1, row: 2).description == "[1,2]")
    }

    @Test("an empty delta changes nothing; one with only replaced rows changes contents only")
    func emptiness() {
        var delta = RowCastWire.FeedDelta<EncodedPayload>()
        #expect(delta.isEmpty && delta.changesContentsOnly)
        delta.reconfiguredRows = [.init(id: "a", at: RowIndexPath(section: 0, row: 0), row: [])]
        #expect(!delta.isEmpty && delta.changesContentsOnly)
        delta.movedRows = [.init(id: "b", from: RowIndexPath(section: 0, row: 1), to: RowIndexPath(section: 0, row: 0))]
        #expect(!delta.changesContentsOnly)
    }
}
