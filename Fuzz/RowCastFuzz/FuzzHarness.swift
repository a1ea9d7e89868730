import RowCastCells
import RowCastClient
import RowCastEngine
import RowCastKit

/// The parsers rowcastd and its clients run on bytes from the network, each as a libFuzzer
/// harness: a harness returns normally for every input, and stops the process (a finding)
/// when a property that must hold for all inputs does not.
enum FuzzHarness: String, CaseIterable {
    /// The JSON parser: whatever it accepts serializes to JSON it parses back to the same value.
    case json
    /// The parser's UTF-8 validation, against the standard library's: a JSON string of the
    /// input's bytes parses exactly when the bytes are valid UTF-8.
    case utf8
    /// The request decoder, on both sockets: any input is a request or a refusal.
    case request
    /// The client's delta applier: any input applied to a replica either applies or throws,
    /// and leaves a replica whose rows and ids agree.
    case delta
    /// Declarative cells on an item from the network: any input is a row the engine accepts
    /// (the same bytes as the serialized row) or a refusal naming a field.
    case cells
    /// The check of a plugin's output: its fast lane (`JSONScanner`) and its full check
    /// (`JSONParser`) give the same cell or the same refusal for any output.
    case output

    /// Runs the harness on one input.
    func run(_ bytes: [UInt8]) {
        switch self {
        case .json: Self.json(bytes)
        case .utf8: Self.utf8(bytes)
        case .request: Self.request(bytes)
        case .delta: Self.delta(bytes)
        case .cells: Self.cells(bytes)
        case .output: Self.output(bytes)
        }
    }

    private static func output(_ bytes: [UInt8]) {
        let fast = Result { () throws(RowAssembler.InvalidOutput) in try RowAssembler.validate(bytes) }
        let full = Result { () throws(RowAssembler.InvalidOutput) in try RowAssembler.validate(bytes, fastLane: false) }
        switch (fast, full) {
        case (.success(let a), .success(let b)) where a == b: return
        case (.failure(let a), .failure(let b)) where a.reason == b.reason: return
        default:
            fatalError(
                "the output check's fast lane and full check disagree on: \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    private static func json(_ bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes) else { return }
        let text = value.serialized()
        guard let again = try? JSONParser.parse(text) else {
            fatalError(
                "the serialization of an accepted value does not parse: \(String(decoding: text, as: UTF8.self))")
        }
        guard again == value, again.serialized() == text else {
            fatalError("a value changed through serialization: \(String(decoding: text, as: UTF8.self))")
        }
    }

    private static func utf8(_ bytes: [UInt8]) {
        // Only the bytes that mean something inside a JSON string are replaced.
        let body = bytes.map {
            $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 ? UInt8(ascii: "a") : $0
        }
        let accepted = (try? JSONParser.parse([UInt8(ascii: "\"")] + body + [UInt8(ascii: "\"")])) != nil
        let valid = String(validating: body, as: UTF8.self) != nil
        guard accepted == valid else {
            fatalError(
                "the parser \(accepted ? "accepted" : "refused") a string the standard library finds \(valid ? "valid" : "invalid") UTF-8: \(body)"
            )
        }
    }

    private static let decoder = RequestDecoder(maximumMessageBytes: 1 << 16)
    private static let generalDecoder = RequestDecoder(maximumMessageBytes: 1 << 16, usesFastLane: false)

    /// Both sockets; and whenever the upsert fast lane takes a message, the general decoder
    /// must return the same request.
    private static func request(_ bytes: [UInt8]) {
        let ingest = decoder.decode(bytes, from: .ingest)
        _ = decoder.decode(bytes, from: .control)
        guard case .request(let fast) = ingest, fast.op == "upsert" else { return }
        guard case .request(let general) = generalDecoder.decode(bytes, from: .ingest), general == fast else {
            fatalError(
                "the upsert fast lane and the general decoder disagree on: \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    /// A replica of three sections, the middle one empty, that deltas are applied to.
    private static let replica: FeedReplica = {
        let snapshot =
            #"{"feed":"f","epoch":"e","seq":1,"sections":[{"id":"a","rows":[{"id":"1"},{"id":"2"},{"id":"3"}]},{"id":"b","rows":[]},{"id":"c","rows":[{"id":"4"},{"id":"5"}]}]}"#
        return try! FeedReplica(snapshot: try! JSONParser.parse(snapshot))
    }()

    private static func delta(_ bytes: [UInt8]) {
        guard let json = try? JSONParser.parse(bytes) else { return }
        var copy = replica
        guard (try? copy.apply(delta: json)) != nil else {
            precondition(copy == replica, "a refused delta changed the replica")
            return
        }
        // What the applier built must load back as a snapshot: unique ids, well-formed rows.
        guard (try? FeedReplica(snapshot: copy.snapshotJSON)) != nil else {
            fatalError(
                "an applied delta left a replica that is not a valid snapshot: \(String(decoding: bytes, as: UTF8.self))"
            )
        }
    }

    /// A cell with every field type, transform and a Mustache section.
    private static let cellDefinition: CellDefinition = {
        var catalog = CellCatalog()
        catalog.add(
            text: """
                cells:
                  - types: [t]
                    cell: C
                    height: 10
                    fields: {s: string, n: number?, i: integer?, b: bool?, u: url?, d: date?}
                    content:
                      plain: "{{s}} {{n}} {{i}} {{b}} {{u}} {{d}} {{item.id}}"
                      formatted: "{{money(n)}} {{count(i)}} {{date(d)}} {{datetime(d)}} {{relative_date(d)}} {{uppercased(s)}} {{reversed(s)}}"
                      section: "{{#b}}yes{{/b}}{{^u}}no url{{/u}}"
                    actions:
                      - {name: edit, role: edit, field: s, params: {v: "{{s}}"}}
                      - {name: flip, role: toggle, field: b}
                """, file: "fuzz.yaml")
        return catalog.definitions[0]
    }()

    private static func cells(_ bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes), let item = try? Item(json: value) else { return }
        let now = 1_795_400_000.0
        guard
            let output = try? cellDefinition.rowBytes(
                fields: item.data, id: item.id, type: item.type, section: item.section, now: now)
        else {
            precondition(
                (try? cellDefinition.row(
                    fields: item.data, id: item.id, type: item.type, section: item.section, now: now)) == nil,
                "rowBytes refused an item that row accepts")
            return
        }
        guard
            let row = try? cellDefinition.row(
                fields: item.data, id: item.id, type: item.type, section: item.section, now: now),
            row.serialized() == output
        else {
            fatalError("rowBytes and row disagree on: \(String(decoding: bytes, as: UTF8.self))")
        }
        do {
            _ = try RowAssembler.row(id: item.id, type: item.type, output: output)
        } catch {
            fatalError(
                "a declarative row is not a row the engine accepts (\(error)): \(String(decoding: output, as: UTF8.self))"
            )
        }
    }
}
