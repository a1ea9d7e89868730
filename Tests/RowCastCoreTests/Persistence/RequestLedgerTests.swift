import RowCastEngine
import RowCastPluginHosting
import RowCastStore
import RowCastJSON
import Testing

struct RequestLedgerTests {
    let key = LedgerKey(client: "c", req: "1")

    @Test("a client name with U+0000 makes no key: its refusal is not remembered, nor stored")
    func clientWithNULMakesNoKey() {
        #expect(LedgerKey(client: "c\u{0}d", req: RequestID(json: "4")) == nil)
        #expect(LedgerKey(client: "c\u{1}d", req: RequestID(json: "4")) != nil)
        #expect(LedgerKey(client: nil, req: RequestID(json: "4")) == nil)
    }

    @Test("a claimed key is fresh once, then in batch; a recorded one is answered")
    func claimAndRecord() {
        var ledger = RequestLedger()
        #expect(ledger.claim(key) == .fresh)
        #expect(ledger.claim(key) == .inBatch)
        ledger.record(key, reply: [1, 2])
        ledger.endBatch()
        #expect(ledger.claim(key) == .answered([1, 2]))
        #expect(ledger.answer(key) == [1, 2])
    }

    @Test("the key keeps 7 and \"7\" apart and needs both client and req")
    func keys() {
        #expect(
            LedgerKey(client: "c", req: RequestID(json: "7")) != LedgerKey(client: "c", req: RequestID(json: #""7""#)))
        #expect(LedgerKey(client: "c", req: RequestID(json: "7")) == LedgerKey(client: "c", req: "7"))
        #expect(
            LedgerKey(client: "c", req: RequestID(json: "123456789012345678"))
                != LedgerKey(client: "c", req: RequestID(json: "123456789012345679")))
        #expect(LedgerKey(client: nil, req: RequestID(json: "7")) == nil)
        #expect(LedgerKey(client: "c", req: nil) == nil)
    }

    @Test("each client keeps its last answers, and the oldest go first overall")
    func limits() {
        var ledger = RequestLedger(limits: .init(perClient: 3, total: 5))
        for number in 1...4 { ledger.record(LedgerKey(client: "a", req: "\(number)"), reply: [UInt8(number)]) }
        #expect(ledger.answer(LedgerKey(client: "a", req: "1")) == nil)
        #expect(ledger.count == 3)
        for number in 1...3 { ledger.record(LedgerKey(client: "b", req: "\(number)"), reply: [UInt8(number)]) }
        #expect(ledger.count == 5)
        #expect(ledger.answer(LedgerKey(client: "a", req: "2")) == nil)
        #expect(ledger.answer(LedgerKey(client: "a", req: "3")) == [3])
        #expect(ledger.answer(LedgerKey(client: "b", req: "1")) == [1])
    }

    @Test("changes list what to delete and insert, and a reload keeps order and limits")
    func changesAndReload() {
        var ledger = RequestLedger(limits: .init(perClient: 2, total: 10))
        ledger.record(LedgerKey(client: "a", req: "1"), reply: [1])
        ledger.record(LedgerKey(client: "a", req: "2"), reply: [2])
        let first = ledger.takeChanges()
        #expect(first.forgotten.isEmpty)
        #expect(first.recorded.map(\.key.req) == ["1", "2"])
        ledger.record(LedgerKey(client: "a", req: "3"), reply: [3])
        let second = ledger.takeChanges()
        #expect(second.forgotten == [LedgerKey(client: "a", req: "1")])
        #expect(second.recorded.map(\.key.req) == ["3"])
        #expect(ledger.takeChanges().isEmpty)

        let entries = [first.recorded[1]] + second.recorded
        var reloaded = RequestLedger(limits: .init(perClient: 2, total: 10), entries: entries.reversed())
        #expect(reloaded.takeChanges().isEmpty)
        reloaded.record(LedgerKey(client: "a", req: "4"), reply: [4])
        #expect(reloaded.answer(LedgerKey(client: "a", req: "2")) == nil)
        #expect(reloaded.takeChanges().recorded.first?.order ?? 0 > second.recorded[0].order)
    }

    @Test("a key recorded and forgotten before a commit is only deleted")
    func recordedThenForgotten() {
        var ledger = RequestLedger(limits: .init(perClient: 1, total: 10))
        ledger.record(LedgerKey(client: "a", req: "1"), reply: [1])
        ledger.record(LedgerKey(client: "a", req: "2"), reply: [2])
        let changes = ledger.takeChanges()
        #expect(changes.recorded.map(\.key.req) == ["2"])
        #expect(changes.forgotten == [LedgerKey(client: "a", req: "1")])
    }

    @Test("merged answers of other nodes are known; what the limits push out of memory is not deleted from the store")
    func mergeLeavesTheStoreAlone() {
        var ledger = RequestLedger(limits: RequestLedger.Limits(perClient: 2))
        let own = LedgerKey(client: "c", req: "own")
        ledger.record(own, reply: [1])
        _ = ledger.takeChanges()
        let others = (1...3).map {
            LedgerEntry(key: LedgerKey(client: "c", req: "\($0)"), order: UInt64($0), reply: [9])
        }
        ledger.merge(others)
        #expect(ledger.count == 2)
        #expect(ledger.answer(LedgerKey(client: "c", req: "3")) == [9])
        let changes = ledger.takeChanges()
        #expect(changes.forgotten.isEmpty && changes.recorded.isEmpty, "\(changes)")
    }
}
