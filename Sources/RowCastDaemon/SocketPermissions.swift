import RowCastSupport
import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// Who may connect to rowcastd's `ipc://` sockets: the socket file's mode (`socket_mode`,
/// 0660 by default) and group (`socket_group`), applied right after the bind. Connecting to a
/// Unix socket needs write permission on its file, so with 0660 only the owner (rowcastd's
/// user) and members of the group may publish, query or subscribe, as with PostgreSQL's or
/// Docker's sockets. TCP endpoints are not files; CURVE protects them.
public struct SocketPermissions: Sendable, Equatable {
    /// The file mode of every `ipc://` socket.
    public var mode: mode_t
    /// The group that owns every `ipc://` socket, or nil to keep rowcastd's own group.
    public var group: gid_t?

    /// The permissions the configuration asks for; an unknown group or a malformed mode is a
    /// configuration error naming the key.
    public init(_ configuration: DaemonConfiguration, file: String?) throws(ConfigurationError) {
        guard let mode = Self.parseMode(configuration.socketMode) else {
            throw ConfigurationError(
                .invalidValue, file: file, key: "socket_mode",
                problem:
                    "must be an octal file mode such as \"0660\", got \(ConfigurationValue.quoted(configuration.socketMode))"
            )
        }
        self.mode = mode
        if configuration.socketGroup.isEmpty {
            group = nil
        } else if let entry = getgrnam(configuration.socketGroup) {
            group = entry.pointee.gr_gid
        } else {
            throw ConfigurationError(
                .invalidValue, file: file, key: "socket_group",
                problem:
                    "there is no group \(ConfigurationValue.quoted(configuration.socketGroup)); create it (groupadd --system \(configuration.socketGroup)) or set socket_group: \"\" to keep rowcastd's own group"
            )
        }
    }

    /// `text` ("0660", "660") as a mode, or nil when it is not octal or above 0777.
    public static func parseMode(_ text: String) -> mode_t? {
        guard !text.isEmpty, text.count <= 4, let value = mode_t(text, radix: 8), value <= 0o777 else { return nil }
        return value
    }

    /// The socket file of an `ipc://` endpoint, or nil for other transports and abstract
    /// sockets (`ipc://@name`, which have no file and no permissions).
    public static func socketPath(of endpoint: String) -> String? {
        guard endpoint.hasPrefix("ipc://") else { return nil }
        let path = String(endpoint.dropFirst("ipc://".count))
        return path.hasPrefix("@") || path.isEmpty ? nil : path
    }

    /// Binds `socket` to `endpoint`; an `ipc://` socket is created while the process umask
    /// lets nobody else in (so it never exists with looser permissions), then its file gets
    /// this mode and group.
    public func bind(_ socket: Socket, to endpoint: String) throws {
        guard Self.socketPath(of: endpoint) != nil else { return try socket.bind(endpoint) }
        let previous = umask(0o177)
        do {
            try socket.bind(endpoint)
        } catch {
            umask(previous)
            throw error
        }
        umask(previous)
        // The path bound (ipc://* gets a generated one).
        guard let path = Self.socketPath(of: try socket.lastEndpoint) else { return }
        try apply(toSocketFile: path)
    }

    /// Gives the socket file at `path` this mode and group (the ZeroMQ `ipc://` sockets after
    /// their bind, and the HTTP endpoint's Unix socket).
    public func apply(toSocketFile path: String) throws(SocketPermissionError) {
        // chown only when the group differs: a new file already has rowcastd's group, which is
        // socket_group under the shipped unit (Group=rowcast), and the unit's SystemCallFilter
        // (~@privileged, which holds @chown) refuses chown with EPERM even then.
        var status = stat()
        if let group, stat(path, &status) != 0 || status.st_gid != group, chown(path, uid_t.max, group) != 0 {
            throw SocketPermissionError(
                path: path,
                problem:
                    "cannot give it the group socket_group names (gid \(group)): \(String(cString: strerror(errno))); rowcastd's user must be a member of that group (under systemd: SupplementaryGroups=, and SystemCallFilter=@chown in a drop-in, since the unit refuses chown; or make it the unit's Group=)"
            )
        }
        if chmod(path, mode) != 0 {
            throw SocketPermissionError(
                path: path,
                problem: "cannot set its mode to \(FileMode.octal(mode)): \(String(cString: strerror(errno)))")
        }
    }
}

/// The permissions of an `ipc://` socket file could not be set.
public struct SocketPermissionError: Error, CustomStringConvertible {
    /// The socket file.
    public let path: String
    /// What failed and what to do.
    public let problem: String
    /// `ipc socket PATH: PROBLEM`.
    public var description: String { "ipc socket \(path): \(problem)" }
}
