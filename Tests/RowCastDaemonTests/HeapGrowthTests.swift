@testable import RowCastDaemon
import Testing

/// rowcastd's heap padding: left to the environment when it sets glibc's own. (Whether glibc
/// takes it is not asserted: the sanitizers' allocators answer `mallopt` themselves.)
struct HeapGrowthTests {
    @Test("an environment that sets glibc's heap padding keeps it; other tunables do not count")
    func environmentWins() {
        #expect(HeapGrowth.setsPaddingItself(["GLIBC_TUNABLES": "glibc.malloc.check=0:glibc.malloc.top_pad=131072"]))
        #expect(HeapGrowth.setsPaddingItself(["MALLOC_TOP_PAD_": "131072"]))
        #expect(!HeapGrowth.setsPaddingItself(["GLIBC_TUNABLES": "glibc.malloc.arena_max=2"]))
        #expect(!HeapGrowth.setsPaddingItself([:]))
        #expect(!HeapGrowth.apply(environment: ["GLIBC_TUNABLES": "glibc.malloc.top_pad=131072"]))
    }
}
