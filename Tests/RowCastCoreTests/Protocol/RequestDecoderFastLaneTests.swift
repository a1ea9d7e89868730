@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import RowCastJSON
import Testing

/// The upsert fast lane against the general decoder: on every input, both decoders must give
/// the same request, or both refuse it (the refusal is then the general decoder's own, since
/// the lane never refuses: it hands over).
struct RequestDecoderFastLaneTests {
    let fast = RequestDecoder(maximumMessageBytes: 1 << 16)
    let general = RequestDecoder(maximumMessageBytes: 1 << 16, usesFastLane: false)

    /// Messages in and around the lane: every member, every kind of value, and each thing the
    /// lane hands over (escapes, `\u`, repeated and unknown members, odd numbers, deep data).
    static let seeds: [String] = [
        #"{"op":"upsert","feed":"cars1","item":{"id":"ir-42","type":"product","section":"s0","data":{"name":"Tesla Model 3 Long Range 42","operatedBy":"Tesla Inc.","price":30042,"image":"https://img.example/cars/42.png"}}}"#,
        #"{"op":"upsert","feed":"cars","req":"r1","client":"c","item":{"id":"42","type":"product","section":"new","sort":1.5,"data":{"name":"Tesla"}}}"#,
        #" { "item" : { "data" : { "a" : [ 1 , -2.25 , true , false , null , { } , [ ] ] } , "type" : "t" , "id" : "x" } , "feed" : "f" , "op" : "upsert" , "req" : 123456789012345678 } "#,
        #"{"op":"upsert","feed":"f","req":-7,"item":{"id":"i","type":"t","sort":-0,"data":null}}"#,
        #"{"op":"upsert","feed":"f","req":1.5,"item":{"id":"i","type":"t"}}"#,
        #"{"op":"upsert","feed":"f","req":"a\/b\"c","item":{"id":"i","type":"t","sort":12345678901234567}}"#,
        #"{"op":"upsert","feed":"f","client":"kl\u00e9","item":{"id":"é","type":"t","section":"ü","data":{"s":"h\u00e9 \ud83d\ude00 \n\t\\"}}}"#,
        #"{"op":"upsert","feed":"f","item":{"id":"i","type":"t","data":{"bad":"\ud800"}}}"#,
        #"{"op":"upsert","feed":"f","item":{"id":"a\u0000b","type":"t"}}"#,
        #"{"op":"upsert","feed":"f","item":{"id":"i","type":"t","id":"j"}}"#,
        #"{"op":"upsert","feed":"f","feed":"g","item":{"id":"i","type":"t"}}"#,
        #"{"op":"upsert","feed":"f","item":{"id":"i","type":"t","colour":"red"}}"#,
        #"{"op":"upsert","feed":"f","extra":1,"item":{"id":"i","type":"t"}}"#,
        #"{"op":"upsert","feed":"f","item":{"id":"i","type":"t","data":[1]}}"#,
        #"{"op":"upsert","feed":"f","item":{"id":"i","type":"t","section":null,"sort":null}}"#,
        #"{"op":"upsert","feed":"f","item":{"id":"i","type":"t","sort":1e3,"data":{"n":[1E+2,0.5e-1,-0.0,01]}}}"#,
        #"{"op":"upsert","feed":"f","item":{"id":"","type":"t"}}"#,
        #"{"op":"upsert","feed":"f g","item":{"id":"i","type":"t"}}"#,
        #"{"op":"upsert","feed":"f","item":{"id":"i","type":"t t"}}"#,
        #"{"op":"upser\u0074","feed":"f","item":{"id":"i","type":"t"}}"#,
        #"{"op":"delete","feed":"f","id":"i"}"#,
        #"{"op":"upsert","feed":"f","item":{"id":"i","type":"t"}} x"#,
        #"{"op":"upsert","feed":"f","item":{"id":"i","type":"t","data":{"d":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}}"#,
        "{\"op\":\"upsert\",\"feed\":\"f\",\"item\":{\"id\":\"i\",\"type\":\"t\",\"data\":{\"c\":\"a\tb\"}}}",
        #"["op","upsert"]"#,
    ]

    func expectSame(_ bytes: [UInt8]) {
        let viaLane = fast.decode(bytes, from: .ingest)
        let viaGeneral = general.decode(bytes, from: .ingest)
        switch (viaLane, viaGeneral) {
        case (.request(let a), .request(let b)):
            #expect(a == b, "different requests for \(String(decoding: bytes, as: UTF8.self))")
        case (.failure(let a, _, _, _), .failure(let b, _, _, _)):
            #expect(a.message == b.message, "different errors for \(String(decoding: bytes, as: UTF8.self))")
        default:
            Issue.record("one decoder took what the other refused: \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test("the lane takes plain upserts, and gives what the general decoder gives")
    func takesPlainUpserts() throws {
        for seed in Self.seeds.prefix(3) {
            #expect(UpsertFastLane.decode(Array(seed.utf8)) != nil, "the lane handed over \(seed)")
            expectSame(Array(seed.utf8))
        }
    }

    @Test(
        "the lane hands over what it does not take whole",
        arguments: [
            #"{"op":"upsert","feed":"f","req":1.5,"item":{"id":"i","type":"t"}}"#,
            #"{"op":"upsert","feed":"f","item":{"id":"i","type":"t","data":{"bad":"\ud800"}}}"#,
            #"{"op":"upsert","feed":"f","item":{"id":"i","type":"t","id":"j"}}"#,
            #"{"op":"upsert","feed":"f","item":{"id":"i","type":"t","sort":1e3}}"#,
            #"{"op":"delete","feed":"f","id":"i"}"#,
            #"{"op":"upsert","feed":"f","item":{"id":"i","type":"t"}} x"#,
        ])
    func handsOver(_ message: String) {
        #expect(UpsertFastLane.decode(Array(message.utf8)) == nil)
        expectSame(Array(message.utf8))
    }

    @Test("every prefix of every seed decodes the same through both")
    func prefixes() {
        for seed in Self.seeds {
            let bytes = Array(seed.utf8)
            for end in 0...bytes.count { expectSame(Array(bytes[..<end])) }
        }
    }

    @Test("20,000 mutations of the seeds decode the same through both")
    func mutations() {
        var mutator = ByteMutator(seed: 19)
        var taken = 0
        for round in 0..<20_000 {
            let bytes = mutator.mutate(Self.seeds[round % Self.seeds.count])
            if UpsertFastLane.decode(bytes) != nil { taken += 1 }
            expectSame(bytes)
        }
        // Mutations that keep a plain upsert exist (whitespace, digits, letters in values), so
        // the lane is exercised, not only the hand-over.
        #expect(taken > 100)
    }
}
