@testable import RowCastCore
import Testing

/// rowcastd's heap padding: set through glibc unless the environment sets glibc's own.
struct HeapGrowthTests {
    @Test("an environment that sets glibc's heap padding keeps it; otherwise rowcastd sets 64 MiB")
    func environmentWins() {
        #expect(!HeapGrowth.apply(environment: ["GLIBC_TUNABLES": "glibc.malloc.check=0:glibc.malloc.top_pad=131072"]))
        #expect(!HeapGrowth.apply(environment: ["MALLOC_TOP_PAD_": "131072"]))
        #expect(!HeapGrowth.setsPaddingItself(["GLIBC_TUNABLES": "glibc.malloc.arena_max=2"]))
        #expect(HeapGrowth.apply(environment: ["GLIBC_TUNABLES": "glibc.malloc.arena_max=2"]))
        #expect(HeapGrowth.apply(environment: [:]))
    }
}
