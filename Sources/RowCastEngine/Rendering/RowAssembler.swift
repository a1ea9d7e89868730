import RowCastJSON

/// Checks a plugin's output and turns it into the bytes of a row or header, adding the item's
/// `id` and `type` in front of the plugin's own members without re-encoding them.
public enum RowAssembler {
    /// What is wrong with a plugin's output.
    public struct InvalidOutput: Error, Sendable, CustomStringConvertible {
        /// Why the output is not a row.
        public var reason: String
        /// The reason.
        public var description: String { reason }
    }

    /// The row for item `id` of `type` from a plugin's render output, or why it is not a row:
    /// the output must be a JSON object with a string `cell`, a finite number `height`, an
    /// object `content` if present, an array `actions` if present, and no `id` or `type`.
    public static func row(id: String, type: String, output: [UInt8]) throws(InvalidOutput) -> RenderedRow {
        var cells = CellNames()
        return try row(id: id, type: type, output: output, cells: &cells)
    }

    /// As ``row(id:type:output:)``, with the cell's name taken from `cells` (shared, and found
    /// from the output's bytes without making a new string when `cells` has it).
    public static func row(
        id: String, type: String, output: [UInt8], cells: inout CellNames
    ) throws(InvalidOutput) -> RenderedRow {
        let cell: String
        if let range = output.withUnsafeBytes({ quickCell($0) }) {
            cell = output.withUnsafeBytes { cells.name(UnsafeRawBufferPointer(rebasing: $0[range])) }
        } else {
            cell = cells.name(try check(output))
        }
        // Everything after the plugin object's opening brace (validated above).
        let brace = output.firstIndex(of: UInt8(ascii: "{"))!
        if let bytes = plainRowBytes(id: id, type: type, output: output, from: brace + 1) {
            return RenderedRow(cell: cell, bytes: bytes)
        }
        var writer = JSONWriter(capacity: output.count + id.utf8.count + type.utf8.count + 24)
        writer.writeRaw("{\"id\":")
        writer.write(string: id)
        writer.writeRaw(",\"type\":")
        writer.write(string: type)
        writer.writeRaw(",")
        writer.writeRaw(output[(brace + 1)...])
        return RenderedRow(cell: cell, bytes: writer.bytes)
    }

    /// The row's bytes, `{"id":"…","type":"…",` and `output` from `start`, copied into one array
    /// of the exact size, when neither `id` nor `type` has a byte that `JSONWriter` escapes (the
    /// usual row: a type is a token, and an id seldom holds a quote, a backslash or a control
    /// character); nil otherwise, and `JSONWriter` writes the escapes. The same bytes as the
    /// writer's, for fewer instructions: the writer appends piece by piece, each append checking
    /// the array's capacity and uniqueness.
    private static func plainRowBytes(id: String, type: String, output: [UInt8], from start: Int) -> [UInt8]? {
        id.utf8.withContiguousStorageIfAvailable { id in
            type.utf8.withContiguousStorageIfAvailable { type in
                guard JSONStringScan.escapeFreeEnd(UnsafeRawBufferPointer(id), from: 0) == id.count,
                    JSONStringScan.escapeFreeEnd(UnsafeRawBufferPointer(type), from: 0) == type.count
                else { return nil }
                let idPrefix: StaticString = "{\"id\":\""
                let typePrefix: StaticString = "\",\"type\":\""
                let typeSuffix: StaticString = "\","
                let total =
                    idPrefix.utf8CodeUnitCount + id.count + typePrefix.utf8CodeUnitCount + type.count
                    + typeSuffix.utf8CodeUnitCount + output.count - start
                // Assembled in a scratch buffer (on the stack for a usual row) and copied into
                // the array once: the array's own ways to be filled in place, `reserveCapacity`
                // and appends or `init(unsafeUninitializedCapacity:)`, cost more than that copy
                // (a capacity and uniqueness check per append; an unspecialized allocation).
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: total) { scratch in
                    var at = scratch.baseAddress!
                    func append(_ piece: UnsafeBufferPointer<UInt8>) {
                        if let from = piece.baseAddress { at.initialize(from: from, count: piece.count) }
                        at += piece.count
                    }
                    append(UnsafeBufferPointer(start: idPrefix.utf8Start, count: idPrefix.utf8CodeUnitCount))
                    append(id)
                    append(UnsafeBufferPointer(start: typePrefix.utf8Start, count: typePrefix.utf8CodeUnitCount))
                    append(type)
                    append(UnsafeBufferPointer(start: typeSuffix.utf8Start, count: typeSuffix.utf8CodeUnitCount))
                    output.withUnsafeBufferPointer { append(UnsafeBufferPointer(rebasing: $0[start...])) }
                    return Array(UnsafeBufferPointer(scratch))
                }
            } ?? nil
        } ?? nil
    }

    /// The header row bytes from a plugin's header output, validated like a row.
    public static func header(output: [UInt8]) throws(InvalidOutput) -> [UInt8] {
        _ = try validate(output)
        return output
    }

    /// Checks a plugin's output in one pass without building it; returns the cell.
    /// `fastLane: false` skips `quickCell` (for the tests and the fuzz harness that compare the two).
    public static func validate(_ output: [UInt8], fastLane: Bool = true) throws(InvalidOutput) -> String {
        if fastLane,
            let cell = output.withUnsafeBytes({ bytes in
                quickCell(bytes).map { String(decoding: UnsafeRawBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
            })
        {
            return cell
        }
        return try check(output)
    }

    /// The fast lane of `validate`: where the cell's name is in an output that is a valid row
    /// in `JSONScanner`'s subset with none of `cell`, `height`, `content` and `actions` repeated
    /// (valid UTF-8 without escapes; other members may repeat, as the full check allows), or nil,
    /// and then `check` decides (and words the error).
    private static func quickCell(_ output: UnsafeRawBufferPointer) -> Range<Int>? {
        var scanner = JSONScanner(output)
        var cell: Range<Int>?
        var hasHeight = false
        var hasContent = false
        var hasActions = false
        let read = scanner.forEachMember { scanner, key in
            if scanner.bytes(key, are: "cell") {
                guard cell == nil, scanner.peek() == UInt8(ascii: "\""), let name = scanner.plainString(), !name.isEmpty
                else { return false }
                cell = name
            } else if scanner.bytes(key, are: "height") {
                guard !hasHeight, let height = scanner.number(), height >= 0 else { return false }
                hasHeight = true
            } else if scanner.bytes(key, are: "content") {
                guard !hasContent, scanner.peek() == UInt8(ascii: "{") else { return false }
                hasContent = true
                return scanner.skipValue()
            } else if scanner.bytes(key, are: "actions") {
                guard !hasActions, scanner.peek() == UInt8(ascii: "[") else { return false }
                hasActions = true
                return scanner.skipValue()
            } else if scanner.bytes(key, are: "id") || scanner.bytes(key, are: "type") {
                return false
            } else {
                return scanner.skipValue()
            }
            return true
        }
        guard read, scanner.atEnd(), hasHeight else { return nil }
        return cell
    }

    /// The full check, with `JSONParser`: any output, and the error that says what is wrong.
    private static func check(_ output: [UInt8]) throws(InvalidOutput) -> String {
        var cell: String?
        var height: Double?
        do {
            try JSONParser.read(output) { reader in
                guard reader.peekValueStart() == UInt8(ascii: "{") else {
                    throw InvalidOutput(reason: "output must be a JSON object, got \(try reader.readValue().kindName)")
                }
                try reader.beginObject()
                while let key = try reader.nextKey() {
                    switch key {
                    case "cell":
                        let value = try reader.readValue()
                        guard case .string(let name) = value, !name.isEmpty else {
                            throw InvalidOutput(
                                reason: "output \"cell\" must be a non-empty string, got \(value.kindName)")
                        }
                        cell = name
                    case "height":
                        let value = try reader.readValue()
                        guard let number = value.numberValue, number.isFinite, number >= 0 else {
                            throw InvalidOutput(reason: "output \"height\" must be a number of 0 or more, got \(value)")
                        }
                        height = number
                    case "content", "actions":
                        let expected: UInt8 = key == "content" ? UInt8(ascii: "{") : UInt8(ascii: "[")
                        guard reader.peekValueStart() == expected else {
                            throw InvalidOutput(
                                reason:
                                    "output \"\(key)\" must be \(key == "content" ? "an object" : "an array"), got \(try reader.readValue().kindName)"
                            )
                        }
                        try reader.skipValue()
                    case "id", "type":
                        throw InvalidOutput(reason: "output must not contain \"id\" or \"type\" (rowcastd adds them)")
                    default:
                        try reader.skipValue()
                    }
                }
            }
        } catch let error as InvalidOutput {
            throw error
        } catch {
            throw InvalidOutput(reason: "output is not valid JSON (\(error))")
        }
        guard let cell else { throw InvalidOutput(reason: "output has no \"cell\" string") }
        guard height != nil else { throw InvalidOutput(reason: "output has no \"height\" number of 0 or more") }
        return cell
    }
}
