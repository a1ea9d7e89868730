import RowCastRelay
import Testing

/// Each client's envelope goes through rowcastd and back unchanged (docs/OPERATIONS.md, "Relays").
@Suite struct RelayEnvelopeTests {
    let peer: [UInt8] = [0, 1, 2, 3, 4]
    let body: [UInt8] = Array(#"{"op":"status"}"#.utf8)
    let reply: [UInt8] = Array(#"{"ok":true}"#.utf8)

    @Test("a DEALER with the empty delimiter: sent up as received, the reply comes back as rowcastd sends it")
    func withDelimiter() {
        let request = RelayEnvelope.Request(frames: [peer, [], body])
        #expect(request.hasDelimiter)
        #expect(request.body == [body])
        #expect(request.upstreamFrames == [peer, [], body])
        // rowcastd keeps everything up to the empty frame: [peer, empty, reply] comes back.
        #expect(RelayEnvelope.downstreamFrames(ofReply: [peer, [], reply]) == [peer, [], reply])
        #expect(request.replyFrames(reply) == [peer, [], reply])
    }

    @Test("a DEALER without the delimiter gets its reply without one, as from rowcastd")
    func withoutDelimiter() {
        let request = RelayEnvelope.Request(frames: [peer, body])
        #expect(!request.hasDelimiter)
        #expect(request.body == [body])
        let up = request.upstreamFrames
        #expect(up == [peer, RelayEnvelope.noDelimiterMarker, [], body])
        // rowcastd echoes every frame up to the empty one.
        #expect(RelayEnvelope.downstreamFrames(ofReply: Array(up.dropLast()) + [reply]) == [peer, reply])
        #expect(request.replyFrames(reply) == [peer, reply])
    }

    @Test("a relay behind a relay: the inner envelope passes through the outer relay untouched")
    func chained() {
        let inner = RelayEnvelope.Request(frames: [peer, body]).upstreamFrames
        let outerPeer: [UInt8] = [9, 9]
        let outer = RelayEnvelope.Request(frames: [outerPeer] + inner)
        #expect(outer.hasDelimiter)
        #expect(outer.body == [body])
        let replyAtOuter = Array(outer.upstreamFrames.dropLast()) + [reply]
        let toInner = RelayEnvelope.downstreamFrames(ofReply: replyAtOuter)
        #expect(toInner == [outerPeer, peer, RelayEnvelope.noDelimiterMarker, [], reply])
        // The inner relay's DEALER receives it without the outer peer.
        #expect(RelayEnvelope.downstreamFrames(ofReply: Array(toInner!.dropFirst())) == [peer, reply])
    }

    @Test("a request with frames after the body keeps them, so it can be refused whole")
    func extraFrames() {
        let request = RelayEnvelope.Request(frames: [peer, [], body, body])
        #expect(request.body.count == 2)
    }

    @Test("a reply with no peer to go to is dropped")
    func noPeer() {
        #expect(RelayEnvelope.downstreamFrames(ofReply: [reply]) == nil)
        #expect(RelayEnvelope.downstreamFrames(ofReply: [[], reply]) == nil)
    }
}
