@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import Testing

/// The plugin-output check's fast lane (`JSONScanner`) against the full check (`JSONParser`):
/// the same cell for every output either takes, the same refusal for every other.
struct RowAssemblerFastLaneTests {
    static let seeds: [String] = [
        #"{"cell":"product","height":88,"content":{"name":"Tesla Model 3 Long Range 7","operatedBy":"Tesla Inc.","price":"$30,007","image":"https://img.example/cars/7.png"},"actions":[{"name":"select","label":"Open"}]}"#,
        #" { "height" : 44.5 , "cell" : "ad" , "extra" : [ null , true , false , -1 , "x\n\"y\"" ] } "#,
        #"{"cell":"c","height":0,"content":{"s":"caf\u00e9 é"}}"#,
        #"{"cell":"","height":1}"#,
        #"{"cell":"c","height":-1}"#,
        #"{"cell":"c","height":1e2}"#,
        #"{"cell":"c","height":1,"cell":"d"}"#,
        #"{"cell":"c","height":1,"id":"x"}"#,
        #"{"cell":"c","height":1,"content":[]}"#,
        #"{"cell":"c","height":1,"actions":{}}"#,
        #"{"cell":"c"}"#,
        #"{"height":1}"#,
        #"{"cell":7,"height":1}"#,
        #"{"cell":"c","height":"1"}"#,
        #"{"cell":"c\u0041","height":1}"#,
        #"["cell"]"#,
        #"{"cell":"c","height":1} {"#,
    ]

    func expectSame(_ output: [UInt8]) {
        let viaLane = Result { () throws(RowAssembler.InvalidOutput) in try RowAssembler.validate(output) }
        let viaCheck = Result { () throws(RowAssembler.InvalidOutput) in
            try RowAssembler.validate(output, fastLane: false)
        }
        switch (viaLane, viaCheck) {
        case (.success(let a), .success(let b)):
            #expect(a == b, "different cells for \(String(decoding: output, as: UTF8.self))")
        case (.failure(let a), .failure(let b)):
            #expect(a.reason == b.reason, "different refusals for \(String(decoding: output, as: UTF8.self))")
        default:
            Issue.record("one check took what the other refused: \(String(decoding: output, as: UTF8.self))")
        }
    }

    @Test("each seed, each of its prefixes and 20,000 mutations: the same cell or the same refusal")
    func sameAsTheFullCheck() {
        for seed in Self.seeds {
            let bytes = Array(seed.utf8)
            for end in 0...bytes.count { expectSame(Array(bytes[..<end])) }
        }
        var mutator = ByteMutator(seed: 11)
        for round in 0..<20_000 {
            let bytes = mutator.mutate(Self.seeds[round % Self.seeds.count])
            expectSame(bytes)
        }
    }

    @Test("a plugin's usual row output is a row, with its cell")
    func usualOutput() throws {
        let row = try RowAssembler.row(id: "7", type: "product", output: Array(Self.seeds[0].utf8))
        #expect(row.cell == "product")
        #expect(
            String(decoding: row.bytes, as: UTF8.self).hasPrefix(
                #"{"id":"7","type":"product","cell":"product","height":88,"#))
    }
}
