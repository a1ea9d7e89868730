/// One call a plugin host makes for rowcastd: which callback, with which input.
public struct HostCall: Sendable {
    /// The callback.
    public var kind: PluginCallKind
    /// The input JSON.
    public var input: [UInt8]

    /// A call of `kind` with `input`.
    public init(kind: PluginCallKind, input: [UInt8]) {
        self.kind = kind
        self.input = input
    }

    /// The batch frame for `calls`: tag, count, then each call's kind and input.
    public static func batchFrame(_ calls: ArraySlice<HostCall>) -> [UInt8] {
        var writer = HostWireWriter(capacity: calls.reduce(9) { $0 + $1.input.count + 5 })
        writeBatchFrame(calls, into: &writer)
        return writer.bytes
    }

    /// Appends the batch frame for `calls` to `writer` (a host's kept one: no buffer made per
    /// batch).
    public static func writeBatchFrame(_ calls: ArraySlice<HostCall>, into writer: inout HostWireWriter) {
        writer.append(HostFrame.Tag.batch.rawValue)
        writer.append(UInt32(calls.count))
        for call in calls {
            writer.append(call.kind.rawValue)
            writer.appendBlock(call.input)
        }
    }

    /// The calls of a batch frame (after its tag), each input as where it is in the frame: a
    /// host reads the inputs in place instead of copying each one out.
    public static func decodeBatch(
        _ reader: inout HostWireReader
    ) throws(HostChannelError) -> [(kind: PluginCallKind, input: Range<Int>)] {
        let count = Int(try reader.uint32())
        var calls: [(kind: PluginCallKind, input: Range<Int>)] = []
        calls.reserveCapacity(min(count, 1 << 16))
        for _ in 0..<count {
            let rawKind = try reader.uint8()
            guard let kind = PluginCallKind(rawValue: rawKind) else {
                throw HostChannelError("an unknown call kind \(rawKind)")
            }
            calls.append((kind, try reader.blockRange()))
        }
        return calls
    }
}

/// What a plugin callback returned in a host, as it returned it; rowcastd checks it.
public struct HostCallResult: Sendable, Equatable {
    /// The callback's status (`ROWCAST_OK`, ...).
    public var status: Int32
    /// Whether the plugin wrote more than the output limit (`output` is then cut short).
    public var overflowed: Bool
    /// Whether the plugin does not implement the callback.
    public var unsupported: Bool
    /// The output bytes.
    public var output: [UInt8]

    /// A result from its parts.
    public init(status: Int32, overflowed: Bool, unsupported: Bool, output: [UInt8]) {
        self.status = status
        self.overflowed = overflowed
        self.unsupported = unsupported
        self.output = output
    }

    /// How many results a host sends in its first frame for a batch: a batch is answered in
    /// chunks, so that rowcastd can apply the first rows while the host renders the rest.
    public static let firstChunkSize = 32
    /// Each chunk is twice the one before, up to this many results: small chunks throughout
    /// cost a frame (two system calls and a wake-up) per 32 items on both sides.
    public static let largestChunkSize = 512

    /// The results frame for `results` (a host builds its frames with ``HostResultsFrame``,
    /// which writes the same bytes).
    public static func resultsFrame(_ results: [HostCallResult]) -> [UInt8] {
        var frame = HostResultsFrame(capacity: results.reduce(5) { $0 + $1.output.count + 9 })
        for result in results {
            frame.append { output in
                output.append(contentsOf: result.output)
                return (result.status, result.overflowed, result.unsupported)
            }
        }
        return frame.finished()
    }

    /// The results of a results frame (after its tag).
    public static func decodeResults(_ reader: inout HostWireReader) throws(HostChannelError) -> [HostCallResult] {
        let count = Int(try reader.uint32())
        var results: [HostCallResult] = []
        results.reserveCapacity(min(count, 1 << 16))
        for _ in 0..<count {
            let status = Int32(bitPattern: try reader.uint32())
            let flags = try reader.uint8()
            results.append(
                HostCallResult(
                    status: status, overflowed: flags & 1 != 0, unsupported: flags & 2 != 0, output: try reader.block())
            )
        }
        guard reader.isAtEnd else { throw HostChannelError("bytes after the last result") }
        return results
    }
}
