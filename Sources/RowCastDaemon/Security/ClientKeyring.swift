import RowCastEngine
import RowCastSupport
import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// The clients allowed to connect with CURVE: one file per client in the keys directory
/// (`curve_clients_directory`, by default /etc/rowcast/clients), like ssh's authorized_keys.
/// `NAME.key` holds the client's public key and what it may do:
///
/// ```
/// public-key = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
/// allow = "publish,reset cars*"
/// allow = "read *"
/// max_feeds = 100
/// ```
///
/// `max_feeds` (optional) is the most feeds the client may have created and not dropped, so
/// that no one key can use up `limits.max_feeds` for the others.
///
/// The client's name is the file name without `.key`. A file that is malformed, or that
/// someone other than root or rowcastd's user could have written (``FileTrust``), is refused
/// with a problem naming it; the other files still count. Read at start and on every reload.
public struct ClientKeyring: Sendable {
    /// One allowed client.
    public struct Client: Sendable, Equatable {
        /// The client's name: its key file's name without `.key`.
        public let name: String
        /// Its public key, 40 characters of Z85.
        public let publicKey: String
        /// What it may do.
        public let grants: [FeedGrant]
        /// The most feeds it may have created and not dropped, or nil for no quota of its own.
        public var maxFeeds: Int?

        /// Whether the client has `permission` on `feed` (any feed matches for `admin`).
        public func allows(_ permission: FeedPermission, feed: String) -> Bool {
            if permission == .admin { return grants.contains { $0.permissions.contains(.admin) } }
            return grants.contains { $0.allows(permission, feed: feed) }
        }
    }

    /// The clients, by public key (Z85).
    public private(set) var clientsByKey: [String: Client] = [:]
    /// The clients, by name.
    public private(set) var clientsByName: [String: Client] = [:]
    /// The files refused, each with why and what to do, for the log and `status`.
    public private(set) var problems: [String] = []

    /// An empty keyring (every CURVE client is refused).
    public init() {}

    /// The key files directly in `directory` named `*.key`.
    public static func load(directory: String) -> ClientKeyring {
        var keyring = ClientKeyring()
        guard let stream = opendir(directory) else {
            keyring.problems.append(
                "\(directory): cannot read the client keys directory: \(String(cString: strerror(errno))); create it (mkdir -m 0755 \(directory)) and put one NAME.key file per client in it"
            )
            return keyring
        }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.hasSuffix(".key"), !name.hasPrefix("."), name.count > 4 { names.append(name) }
        }
        closedir(stream)
        for name in names.sorted() {
            let path = (directory.hasSuffix("/") ? directory : directory + "/") + name
            do {
                let client = try readClient(path, name: String(name.dropLast(4)))
                if let other = keyring.clientsByKey[client.publicKey] {
                    keyring.problems.append(
                        "\(path): the same public key as \(other.name).key; each client needs its own key pair (rowcast keygen \(client.name))"
                    )
                    continue
                }
                keyring.clientsByKey[client.publicKey] = client
                keyring.clientsByName[client.name] = client
            } catch {
                keyring.problems.append(error.description)
            }
        }
        return keyring
    }

    /// Adds or replaces a client (for tests and embedding).
    public mutating func add(_ client: Client) {
        clientsByKey[client.publicKey] = client
        clientsByName[client.name] = client
    }

    /// Reads one client key file.
    static func readClient(_ path: String, name: String) throws(KeyFileError) -> Client {
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else {
            throw KeyFileError(
                file: path, problem: "a client name may hold letters, digits, '-', '_' and '.'; rename the file")
        }
        let text = try SmallFile.readTrusted(path, what: "client key file")
        if KeyFileText.value(of: "secret-key", in: text) != nil {
            throw KeyFileError(
                file: path,
                problem:
                    "holds a secret key; the server needs only the public key: copy NAME.pub from rowcast keygen, never NAME.key"
            )
        }
        guard let key = KeyFileText.value(of: "public-key", in: text), Curve.isKey(key) else {
            throw KeyFileError(
                file: path,
                problem:
                    "no public-key = \"...\" line with 40 characters of Z85; copy the NAME.pub file that rowcast keygen wrote"
            )
        }
        var grants: [FeedGrant] = []
        for line in KeyFileText.values(of: "allow", in: text) {
            switch FeedGrant.parse(line) {
            case .success(let grant): grants.append(grant)
            case .failure(let problem):
                throw KeyFileError(file: path, problem: "allow = \"\(line)\": \(problem.message)")
            }
        }
        var client = Client(name: name, publicKey: key, grants: grants)
        if let quota = KeyFileText.value(of: "max_feeds", in: text) {
            guard let value = Int(quota), value >= 0 else {
                throw KeyFileError(
                    file: path, problem: "max_feeds = \"\(quota)\": give a whole number of feeds, 0 or more")
            }
            client.maxFeeds = value
        }
        return client
    }
}
