import RowCastDaemon
import RowCastWire
import Testing

@Suite struct PartitionAssignmentTests {
    @Test func everyPartitionHasOneOwnerAndTheyAreSpreadEvenly() {
        let assignment = PartitionAssignment(nodes: ["node-c", "node-a", "node-b"])
        var counts: [String: Int] = [:]
        for partition in Partition.all { counts[assignment.owner(of: partition)!, default: 0] += 1 }
        #expect(counts.values.reduce(0, +) == Partition.count)
        #expect(counts.count == 3)
        // 256 over 3 is 85.3 each; rendezvous hashing keeps each within a few tens of it.
        #expect(counts.values.allSatisfy { (60...110).contains($0) }, "counts: \(counts)")
        let union = ["node-a", "node-b", "node-c"].reduce(into: Set<Partition>()) {
            $0.formUnion(assignment.partitions(of: $1))
        }
        #expect(union.count == Partition.count)
    }

    @Test func orderAndDuplicatesDoNotMatter() {
        let one = PartitionAssignment(nodes: ["b", "a", "c"])
        let other = PartitionAssignment(nodes: ["c", "a", "b", "a"])
        #expect(one == other)
        #expect(Partition.all.allSatisfy { one.owner(of: $0) == other.owner(of: $0) })
    }

    @Test func aNodeLeavingMovesOnlyItsPartitions() {
        let before = PartitionAssignment(nodes: ["a", "b", "c"])
        let after = PartitionAssignment(nodes: ["a", "b"])
        for partition in Partition.all where before.owner(of: partition) != "c" {
            #expect(after.owner(of: partition) == before.owner(of: partition))
        }
        #expect(Partition.all.allSatisfy { after.owner(of: $0) != "c" })
    }

    @Test func aNodeJoiningTakesOnlyWhatItWins() {
        let before = PartitionAssignment(nodes: ["a", "b"])
        let after = PartitionAssignment(nodes: ["a", "b", "c"])
        var moved = 0
        for partition in Partition.all where after.owner(of: partition) != before.owner(of: partition) {
            #expect(after.owner(of: partition) == "c")
            moved += 1
        }
        #expect(moved > 0 && moved < Partition.count / 2)
    }

    @Test func noNodeOwnsNothing() {
        let assignment = PartitionAssignment(nodes: [String]())
        #expect(assignment.owner(of: Partition(feed: "cars")) == nil)
        #expect(assignment.partitions(of: "a").isEmpty)
    }
}
