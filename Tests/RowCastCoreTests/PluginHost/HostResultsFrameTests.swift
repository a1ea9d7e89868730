import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import Testing

/// The frames a plugin host builds in place: a results frame written one result at a time is
/// byte for byte the protocol's, decodes back to its results, and keeps no output for an
/// overflowed call; a batch decodes to where each input is in the frame.
@Suite("HostResultsFrame")
struct HostResultsFrameTests {
    private static let results = [
        HostCallResult(
            status: 0, overflowed: false, unsupported: false, output: Array(#"{"cell":"A","height":1}"#.utf8)),
        HostCallResult(status: 1, overflowed: false, unsupported: false, output: Array(#"{"message":"no"}"#.utf8)),
        HostCallResult(status: 0, overflowed: false, unsupported: true, output: []),
        HostCallResult(status: 0, overflowed: true, unsupported: false, output: []),
    ]

    /// `result` appended as a host appends it: output first, flags after.
    private static func append(_ result: HostCallResult, overflowing: Bool, to frame: inout HostResultsFrame) {
        frame.append { output in
            output.append(contentsOf: overflowing ? Array(repeating: UInt8(ascii: " "), count: 100) : result.output)
            return (result.status, result.overflowed, result.unsupported)
        }
    }

    @Test("a frame built in place has the protocol's bytes, and its buffer serves the next chunk")
    func protocolBytes() throws {
        var frame = HostResultsFrame(capacity: 16)
        Self.append(Self.results[0], overflowing: false, to: &frame)
        let one = frame.finished()
        // Tag, count 1, status 0, flags 0, length 23, the output.
        #expect(one == [0x53, 1, 0, 0, 0, 0, 0, 0, 0, 0, 23, 0, 0, 0] + Self.results[0].output)

        frame.clear()
        #expect(frame.count == 0)
        for result in Self.results { Self.append(result, overflowing: result.overflowed, to: &frame) }
        #expect(frame.count == 4)
        let bytes = frame.finished()
        #expect(bytes == HostCallResult.resultsFrame(Self.results))
        var reader = HostWireReader(bytes[...])
        #expect(try reader.uint8() == HostFrame.Tag.results.rawValue)
        // The overflowed call's 100 bytes were dropped: it decodes with no output.
        #expect(try HostCallResult.decodeResults(&reader) == Self.results)
    }

    @Test("a batch decodes to each call's kind and where its input is in the frame")
    func batchRanges() throws {
        let calls = [
            HostCall(kind: .renderItem, input: Array(#"{"id":"a","type":"t"}"#.utf8)),
            HostCall(kind: .select, input: []),
            HostCall(kind: .renderHeader, input: Array(#"{"id":"s"}"#.utf8)),
        ]
        let frame = HostCall.batchFrame(calls[...])
        var reader = HostWireReader(frame[...])
        #expect(try reader.uint8() == HostFrame.Tag.batch.rawValue)
        let decoded = try HostCall.decodeBatch(&reader)
        #expect(decoded.map(\.kind) == calls.map(\.kind))
        #expect(decoded.map { Array(frame[$0.input]) } == calls.map(\.input))

        // A length past the end of the frame is a broken channel, not a read out of bounds.
        var cut = HostWireReader(frame.dropLast()[...])
        _ = try cut.uint8()
        #expect(throws: HostChannelError.self) { try HostCall.decodeBatch(&cut) }
    }
}
