import CRowCastHost

/// How rowcastd asks glibc's malloc to grow its heaps: by 64 MiB at a time (`M_TOP_PAD`)
/// instead of by what each allocation lacks.
///
/// The loop thread's memory grows by about a kilobyte per new item (the item, its row and
/// their index entries), and glibc grows a thread's heap by exactly what the allocation in
/// hand needs, with an `mprotect` of the new pages each time: under a flood of new items about
/// one call per eight items, each a change of the process's memory map under its lock, paid
/// in the loop's kernel time. With the padding a thread's heap is mapped read-write whole
/// when glibc makes it, and the calls are gone.
///
/// What it costs: glibc keeps up to the padding of freed memory at the top of each heap
/// instead of handing it back, and setting it turns off glibc's adaptive mmap threshold (blocks
/// of 128 KiB and more are mapped and unmapped each time). A `GLIBC_TUNABLES` that sets
/// `glibc.malloc.top_pad`, or `MALLOC_TOP_PAD_`, wins: rowcastd then leaves the setting alone
/// (`glibc.malloc.top_pad=131072` is glibc's own default).
public enum HeapGrowth {
    /// How much glibc adds to each heap's growth, and keeps when a heap shrinks.
    public static let padding = 64 << 20

    /// Sets the padding before the daemon's threads start, unless `environment` sets glibc's
    /// own; returns whether it was set.
    @discardableResult
    public static func apply(environment: [String: String]) -> Bool {
        guard !setsPaddingItself(environment) else { return false }
        return rowcast_heap_set_top_pad(Int32(padding)) == 1
    }

    /// Whether `environment` sets glibc's heap padding itself.
    static func setsPaddingItself(_ environment: [String: String]) -> Bool {
        environment["MALLOC_TOP_PAD_"] != nil || (environment["GLIBC_TUNABLES"] ?? "").contains("glibc.malloc.top_pad")
    }
}
