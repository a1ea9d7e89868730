import Testing
@testable import RowCastGateway

@Suite struct DeltaHistoryTests {
    @Test func coversEveryPointFromItsStartToItsEnd() {
        var history = DeltaHistory(epoch: "e", seq: 10, limit: 5)
        for seq in 11...13 { history.append("d\(seq)", seq: seq, epoch: "e") }
        #expect(history.deltas(after: 10, epoch: "e") == ["d11", "d12", "d13"])
        #expect(history.deltas(after: 12, epoch: "e") == ["d13"])
        #expect(history.deltas(after: 13, epoch: "e") == [])
        #expect(history.deltas(after: 9, epoch: "e") == nil)
        #expect(history.deltas(after: 14, epoch: "e") == nil)
        #expect(history.deltas(after: 11, epoch: "other") == nil)
    }

    @Test func dropsTheOldestPastItsLimit() {
        var history = DeltaHistory(epoch: "e", seq: 0, limit: 2)
        for seq in 1...4 { history.append("d\(seq)", seq: seq, epoch: "e") }
        #expect(history.deltas(after: 1, epoch: "e") == nil)
        #expect(history.deltas(after: 2, epoch: "e") == ["d3", "d4"])
    }

    @Test func aDeltaThatDoesNotFollowStartsItAgain() {
        var history = DeltaHistory(epoch: "e", seq: 0, limit: 10)
        history.append("d1", seq: 1, epoch: "e")
        history.append("d5", seq: 5, epoch: "e")
        #expect(history.deltas(after: 1, epoch: "e") == nil)
        #expect(history.deltas(after: 4, epoch: "e") == ["d5"])
        history.append("f1", seq: 1, epoch: "f")
        #expect(history.deltas(after: 4, epoch: "e") == nil)
        #expect(history.deltas(after: 0, epoch: "f") == ["f1"])
    }
}
