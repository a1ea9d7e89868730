/// One datagram of the systemd notification protocol (sd_notify(3)): newline-separated
/// `NAME=value` assignments.
public struct NotifyMessage: Sendable, Equatable, CustomStringConvertible {
    /// The assignments, in order.
    public private(set) var assignments: [(name: String, value: String)]

    /// A message of `assignments`.
    public init(_ assignments: [(name: String, value: String)] = []) { self.assignments = assignments }

    /// Start-up is complete: every socket is bound and state is loaded.
    public static let ready = NotifyMessage([("READY", "1")])
    /// The service is stopping.
    public static let stopping = NotifyMessage([("STOPPING", "1")])
    /// The loop is alive (keeps systemd's watchdog from restarting the service).
    public static let watchdog = NotifyMessage([("WATCHDOG", "1")])

    /// A reload has begun, at `monotonicMicroseconds` of `CLOCK_MONOTONIC` (systemd 253 needs
    /// the time with `Type=notify-reload`; older versions ignore it).
    public static func reloading(monotonicMicroseconds: UInt64) -> NotifyMessage {
        NotifyMessage([("RELOADING", "1"), ("MONOTONIC_USEC", String(monotonicMicroseconds))])
    }

    /// A one-line status for `systemctl status`; line breaks become spaces.
    public static func status(_ text: String) -> NotifyMessage {
        NotifyMessage([("STATUS", text)])
    }

    /// Asks systemd to wait `microseconds` more, from now, before it gives up on a start
    /// (`TimeoutStartSec=`) that takes long; sent again before that time runs out.
    public static func extendTimeout(microseconds: UInt64) -> NotifyMessage {
        NotifyMessage([("EXTEND_TIMEOUT_USEC", String(microseconds))])
    }

    /// The main process id (for a service started through a wrapper).
    public static func mainPID(_ pid: Int32) -> NotifyMessage {
        NotifyMessage([("MAINPID", String(pid))])
    }

    /// This message followed by `other`, in one datagram.
    public func adding(_ other: NotifyMessage) -> NotifyMessage {
        NotifyMessage(assignments + other.assignments)
    }

    /// The datagram's text: one `NAME=value` per line. Values never contain a line break.
    public var description: String {
        assignments.map { name, value in
            name + "=" + String(value.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
        }.joined(separator: "\n")
    }

    /// The datagram's bytes.
    public var bytes: [UInt8] { Array(description.utf8) }

    /// Equal when the datagrams are equal.
    public static func == (lhs: NotifyMessage, rhs: NotifyMessage) -> Bool { lhs.description == rhs.description }
}
