/// Appends compact JSON text to a byte buffer; the one serializer RowCast uses on every path.
public struct JSONWriter {
    /// The bytes written so far.
    public var bytes: [UInt8]

    /// A writer with an empty buffer of at least `capacity` bytes.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The room of the stack buffer a write goes through (``JSONStage``); a longer value
    /// flushes it as it fills.
    @usableFromInline static let stageCapacity = 1024

    /// Runs `body` over a stage that appends to `bytes`, then flushes it.
    @inlinable
    package mutating func withStage(_ body: (inout JSONStage) -> Void) {
        withUnsafeTemporaryAllocation(byteCount: Self.stageCapacity, alignment: 8) { buffer in
            withUnsafeMutablePointer(to: &bytes) { destination in
                var stage = JSONStage(buffer: buffer, destination: destination)
                body(&stage)
                stage.flush()
            }
        }
    }

    /// Appends `value` as compact JSON.
    public mutating func write(_ value: JSONValue) {
        withStage { $0.write(value) }
    }

    /// Appends an object as compact JSON, members in their order.
    public mutating func write(object: JSONObject) {
        withStage { $0.write(object: object) }
    }

    /// Appends a number: integral values up to 2^53 without a fraction, non-finite ones as `null`.
    public mutating func write(number: Double) {
        withStage { $0.write(number: number) }
    }

    /// Appends an integer.
    public mutating func write(integer: Int64) {
        withStage { $0.write(integer: integer) }
    }

    /// Appends a quoted, escaped string.
    public mutating func write(string: String) {
        withStage { $0.write(string: string) }
    }

    /// Appends bytes that are already valid JSON (a stored row, say) without looking at them.
    public mutating func writeRaw(_ json: some Sequence<UInt8>) {
        bytes.append(contentsOf: json)
    }

    /// Appends bytes that are already valid JSON, as one copy. The generic form above, called
    /// from another module, is not specialized and appends byte by byte, which made writing a
    /// big snapshot measurably slower.
    public mutating func writeRaw(_ json: [UInt8]) {
        bytes.append(contentsOf: json)
    }

    /// Appends a slice of bytes that are already valid JSON, as one copy (see above).
    public mutating func writeRaw(_ json: ArraySlice<UInt8>) {
        bytes.append(contentsOf: json)
    }

    /// Appends ASCII text that is already valid JSON (punctuation, a literal).
    public mutating func writeRaw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

extension JSONValue {
    /// This value as compact JSON bytes.
    public func serialized() -> [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }
}
