import RowCastEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Names the current boot of the machine, so that a start can tell a crash of the process (the
/// operating system kept every write) from a reboot after a crash of the machine (writes that
/// were not synced may be gone).
///
/// Two facts are recorded at every start: Linux's boot id (`/proc/sys/kernel/random/boot_id`),
/// when it can be read, and the wall-clock time the machine booted, derived from the clocks
/// (`CLOCK_REALTIME` minus `CLOCK_BOOTTIME`), which every process can read whatever `/proc`
/// shows. The boot id is exact, but the unit's `ProcSubset=pid` hides it; the clocks need no
/// file at all. `sameBoot(as:)` uses the boot id when both starts read it, else the clocks.
struct BootIdentity: Equatable {
    /// The boot id, or nil where the system does not show it (`ProcSubset=pid`, not Linux).
    var bootID: String?
    /// The wall-clock time of the boot, in seconds since the epoch (`CLOCK_REALTIME` minus
    /// `CLOCK_BOOTTIME`, read together).
    var bootTime: Double
    /// `CLOCK_BOOTTIME` when read, in seconds: time since the boot, suspend included.
    var uptime: Double

    /// How far the derived boot time may move within one boot, in seconds. The kernel slews
    /// the wall clock by tiny amounts; only a step of the wall clock (`date -s`, a first
    /// NTP sync) moves it more, and then a crash restart is taken for a reboot: new epochs,
    /// the safe side. A real reboot moves it by at least the uptime rowcastd started at.
    static let bootTimeTolerance = 2.0

    /// The boot as seen now.
    static func current() -> BootIdentity {
        var wall = timespec()
        var boot = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        clock_gettime(CLOCK_BOOTTIME, &boot)
        let uptime = seconds(boot)
        return BootIdentity(bootID: readBootID(), bootTime: seconds(wall) - uptime, uptime: uptime)
    }

    /// The boot recorded in the store's meta table (`boot_id`, `boot_time`, `boot_uptime`), or
    /// nil when it records no boot time (a store written before boot times were recorded).
    init?(meta: [String: String]) {
        guard let time = meta["boot_time"].flatMap(Double.init), let uptime = meta["boot_uptime"].flatMap(Double.init)
        else { return nil }
        let id = meta["boot_id"] ?? ""
        self.init(bootID: id.isEmpty ? nil : id, bootTime: time, uptime: uptime)
    }

    /// A boot from its parts.
    init(bootID: String?, bootTime: Double, uptime: Double) {
        self.bootID = bootID
        self.bootTime = bootTime
        self.uptime = uptime
    }

    /// The meta values that record this boot.
    var meta: [String: String] {
        ["boot_id": bootID ?? "", "boot_time": Self.format(bootTime), "boot_uptime": Self.format(uptime)]
    }

    /// Whether `recorded` (read at an earlier start) is this same boot. With both boot ids,
    /// they decide. Otherwise the clocks: the same boot has a boot time within
    /// `bootTimeTolerance` and an uptime that only grew.
    func sameBoot(as recorded: BootIdentity) -> Bool {
        if let bootID, let recordedID = recorded.bootID { return bootID == recordedID }
        return uptime >= recorded.uptime && abs(bootTime - recorded.bootTime) <= Self.bootTimeTolerance
    }

    /// What was compared, for the log.
    func describe(against recorded: BootIdentity) -> String {
        if let bootID, let recordedID = recorded.bootID { return "boot id \(recordedID) then \(bootID)" }
        return
            "boot time \(Self.format(recorded.bootTime)) s then \(Self.format(bootTime)) s (uptime \(Self.format(recorded.uptime)) s then \(Self.format(uptime)) s), the boot id being hidden"
    }

    private static func seconds(_ time: timespec) -> Double {
        Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
    }

    private static func format(_ value: Double) -> String {
        String(Double(Int64((value * 1000).rounded())) / 1000)
    }

    /// The boot id file's contents, or nil where it cannot be read.
    private static func readBootID() -> String? {
        let descriptor = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self).trimmingSpaces
        return text.isEmpty ? nil : text
    }
}
