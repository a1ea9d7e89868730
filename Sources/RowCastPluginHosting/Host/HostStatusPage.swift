import CRowCastHost

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A page of memory shared by rowcastd and one plugin host: the host writes which call of the
/// batch it is in before each call, so when it dies or hangs rowcastd knows which item did it
/// without a round trip per item.
///
/// Layout: a 64-bit count of calls started, then the 32-bit index of the current call in its
/// batch (`UInt32.max` before the first call of a batch). Not `Sendable`: it owns a mapping.
public final class HostStatusPage {
    /// The memory file behind the page (close-on-exec), handed to the host.
    public let descriptor: Int32
    private let base: UnsafeMutableRawPointer

    /// A new page in a new memory file.
    public static func create() -> HostStatusPage? {
        let descriptor = rowcast_memfd_create("rowcast:host-status")
        guard descriptor >= 0 else { return nil }
        guard ftruncate(descriptor, 4096) == 0, let page = HostStatusPage(descriptor: descriptor) else {
            close(descriptor)
            return nil
        }
        return page
    }

    /// The page in the memory file `descriptor` (the host's side).
    public init?(descriptor: Int32) {
        guard let mapping = mmap(nil, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), mapping != MAP_FAILED
        else { return nil }
        self.descriptor = descriptor
        self.base = mapping
    }

    deinit {
        munmap(base, 4096)
        close(descriptor)
    }

    /// How many calls the host has started.
    public var callsStarted: UInt64 { base.load(as: UInt64.self) }

    /// The index in its batch of the call in progress, `nil` before the first.
    public var currentIndex: Int? {
        let index = base.load(fromByteOffset: 8, as: UInt32.self)
        return index == UInt32.max ? nil : Int(index)
    }

    /// rowcastd: a new batch is about to be sent.
    public func resetIndex() { base.storeBytes(of: UInt32.max, toByteOffset: 8, as: UInt32.self) }

    /// The host: call `index` of the batch starts now.
    public func begin(_ index: Int) {
        base.storeBytes(of: UInt32(index), toByteOffset: 8, as: UInt32.self)
        base.storeBytes(of: callsStarted &+ 1, as: UInt64.self)
    }
}

@available(*, unavailable)
extension HostStatusPage: Sendable {}
