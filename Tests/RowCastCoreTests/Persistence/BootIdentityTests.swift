@testable import RowCastEngine
@testable import RowCastPluginHosting
@testable import RowCastStore
import Testing

/// Telling a restart of the process from a reboot of the machine, with and without the boot id.
struct BootIdentityTests {
    static let recorded = BootIdentity(bootID: nil, bootTime: 1_800_000_000, uptime: 120)

    @Test("the current boot reads a boot time and an uptime from the clocks, and is its own boot")
    func currentIsSameBoot() {
        let first = BootIdentity.current()
        let second = BootIdentity.current()
        #expect(first.uptime > 0)
        #expect(second.sameBoot(as: first))
        #expect(BootIdentity(meta: first.meta) != nil)
    }

    @Test("both boot ids present: they alone decide")
    func bootIDsDecide() {
        let before = BootIdentity(bootID: "a", bootTime: 1_800_000_000, uptime: 120)
        #expect(BootIdentity(bootID: "a", bootTime: 1_700_000_000, uptime: 5).sameBoot(as: before))
        #expect(!BootIdentity(bootID: "b", bootTime: 1_800_000_000, uptime: 500).sameBoot(as: before))
    }

    @Test("boot id hidden (ProcSubset=pid): a later moment of the same boot is the same boot")
    func clocksSameBoot() {
        #expect(BootIdentity(bootID: nil, bootTime: 1_800_000_000.4, uptime: 4000).sameBoot(as: Self.recorded))
        // Recorded with the id readable, read now without it: the clocks decide.
        let withID = BootIdentity(bootID: "a", bootTime: 1_800_000_000, uptime: 120)
        #expect(BootIdentity(bootID: nil, bootTime: 1_799_999_999.2, uptime: 130).sameBoot(as: withID))
    }

    @Test("boot id hidden: a reboot moves the boot time (by at least the old uptime) or resets the uptime")
    func clocksReboot() {
        // Rebooted 10 minutes after the recorded start, up for 30 s.
        #expect(!BootIdentity(bootID: nil, bootTime: 1_800_000_000 + 120 + 600, uptime: 30).sameBoot(as: Self.recorded))
        // Rebooted, up longer than before by now.
        #expect(
            !BootIdentity(bootID: nil, bootTime: 1_800_000_000 + 120 + 600, uptime: 4000).sameBoot(as: Self.recorded))
        // A wrong wall clock after the reboot that lands on the old boot time: the uptime went back.
        #expect(!BootIdentity(bootID: nil, bootTime: 1_800_000_000, uptime: 60).sameBoot(as: Self.recorded))
        // A step of the wall clock is taken for a reboot (the safe side).
        #expect(!BootIdentity(bootID: nil, bootTime: 1_800_000_000 + 30, uptime: 4000).sameBoot(as: Self.recorded))
    }

    @Test("meta without a boot time (a store from before) records no boot")
    func oldMeta() {
        #expect(BootIdentity(meta: ["boot_id": "a"]) == nil)
        let restored = BootIdentity(meta: ["boot_id": "", "boot_time": "1800000000.25", "boot_uptime": "120.5"])
        #expect(restored == BootIdentity(bootID: nil, bootTime: 1_800_000_000.25, uptime: 120.5))
    }
}
