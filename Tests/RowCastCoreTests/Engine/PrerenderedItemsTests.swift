@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import Testing

/// The prerendered item jobs of a batch: found in sending order without a table, out of order
/// and after a second group through one, the job sent last for an input winning.
@Suite("PrerenderedItems")
struct PrerenderedItemsTests {
    /// A stream whose outcome at an index names the index.
    final class NamingStream: RenderStream {
        func outcome(at index: Int) -> RenderOutcome { .failed(message: "job \(index)") }
        func hasOutcomes(through index: Int) -> Bool { true }
        func hasOutcome(at index: Int) -> Bool { true }
        var renderWait: RenderWait? { nil }
        func finish() {}
    }

    /// The index of the job found for `input` (nil: none).
    private func found(_ items: inout PrerenderedItems, _ input: [UInt8]) -> Int? {
        JobInputIdentity(input).flatMap { items.job(for: $0) }?.index
    }

    private func record(_ items: inout PrerenderedItems, _ inputs: [[UInt8]], stream: NamingStream, from first: Int = 0)
    {
        items.beginGroup()
        for (offset, input) in inputs.enumerated() {
            items.append(
                PrerenderedJob(stream: stream, index: first + offset, input: input), for: JobInputIdentity(input)!)
        }
    }

    @Test("in order, out of order, skipped and unknown inputs")
    func lookups() {
        let stream = NamingStream()
        let inputs = (0..<5).map { Array("item \($0)".utf8) }
        var items = PrerenderedItems()
        record(&items, inputs, stream: stream)
        #expect(found(&items, inputs[0]) == 0)
        #expect(found(&items, inputs[1]) == 1)
        #expect(found(&items, inputs[3]) == 3)  // 2 was skipped
        #expect(found(&items, inputs[2]) == 2)  // and asked for later
        #expect(found(&items, inputs[4]) == 4)
        #expect(found(&items, inputs[0]) == 0)  // again
        #expect(found(&items, Array("item 0".utf8)) == nil)  // equal bytes, another array
        items.removeAll()
        #expect(found(&items, inputs[0]) == nil)
    }

    @Test("an input sent again in a second group is answered by its last job")
    func secondGroup() {
        let stream = NamingStream()
        let inputs = (0..<3).map { Array("item \($0)".utf8) }
        var items = PrerenderedItems()
        record(&items, inputs, stream: stream)
        #expect(found(&items, inputs[0]) == 0)
        record(&items, [inputs[1]], stream: stream, from: 3)
        #expect(found(&items, inputs[1]) == 3)
        #expect(found(&items, inputs[2]) == 2)
    }
}
