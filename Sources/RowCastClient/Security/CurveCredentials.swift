import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// What a client needs to connect to a daemon that has CURVE on: the server's public key and
/// the client's own key pair (`rowcast keygen NAME` writes one). Every RowCastClient type takes
/// it as `curve:`; the CLI builds it from `--server-key` and `--key` (or `ROWCAST_SERVER_KEY`
/// and `ROWCAST_KEY`).
public struct CurveCredentials: Sendable, Equatable {
    /// The daemon's public key, 40 characters of Z85.
    public let serverKey: String
    /// This client's public key, 40 characters of Z85.
    public let publicKey: String
    /// This client's secret key, 40 characters of Z85.
    public let secretKey: String

    /// Credentials from Z85 keys; the public key is derived from the secret one.
    public init(serverKey: String, secretKey: String) throws(RowCastClientError) {
        guard Curve.isAvailable else {
            throw RowCastClientError(
                code: "curve_unavailable",
                message: "this libzmq has no CURVE (zmq_has(\"curve\") is false); install a libzmq built with libsodium"
            )
        }
        guard Curve.isKey(serverKey) else {
            throw RowCastClientError(
                code: "invalid_key",
                message:
                    "the server key must be 40 characters of Z85 (the public-key of the daemon's server.pub), got \(serverKey.count) characters"
            )
        }
        do {
            publicKey = try Curve.publicKey(ofSecret: secretKey)
        } catch {
            throw RowCastClientError(
                code: "invalid_key", message: "the client secret key is not 40 characters of Z85: \(error)")
        }
        self.serverKey = serverKey
        self.secretKey = secretKey
    }

    /// Credentials from the command line: `serverKey` is a Z85 key or a file holding a
    /// `public-key = "..."` line (the daemon's server.pub); `keyFile` is the file `rowcast
    /// keygen` wrote (with `secret-key = "..."`).
    ///
    /// A file that exists wins: a path of exactly 40 characters, all of them Z85 (letters,
    /// digits, `/`, `.`, `-`, ...; `/tmp/rowcast-state/curve/server.pub` is 34), is also a
    /// well-formed key, and taking it for one failed the handshake with no word of the file.
    public static func load(serverKey: String, keyFile: String) throws(RowCastClientError) -> CurveCredentials {
        let server: String
        if Curve.isKey(serverKey) && access(serverKey, F_OK) != 0 {
            server = serverKey
        } else {
            let text = try readFile(serverKey, what: "server key (a file with a public-key line, or the key itself)")
            guard let key = KeyLine.value(of: "public-key", in: text) else {
                throw RowCastClientError(
                    code: "invalid_key",
                    message:
                        "\(serverKey): no public-key = \"...\" line; give the daemon's server.pub or its 40-character key"
                )
            }
            server = key
        }
        let text = try readFile(keyFile, what: "client key file")
        guard let secret = KeyLine.value(of: "secret-key", in: text) else {
            throw RowCastClientError(
                code: "invalid_key",
                message:
                    "\(keyFile): no secret-key = \"...\" line; give the NAME.key file rowcast keygen wrote (not NAME.pub)"
            )
        }
        return try CurveCredentials(serverKey: server, secretKey: secret)
    }

    /// A new CURVE key pair (`zmq_curve_keypair`), Z85.
    public static func newKeyPair() throws(RowCastClientError) -> (publicKey: String, secretKey: String) {
        guard Curve.isAvailable else {
            throw RowCastClientError(
                code: "curve_unavailable",
                message: "this libzmq has no CURVE (zmq_has(\"curve\") is false); install a libzmq built with libsodium"
            )
        }
        do {
            return try Curve.keyPair()
        } catch {
            throw RowCastClientError(code: "curve_unavailable", message: "cannot generate a key pair: \(error)")
        }
    }

    /// Makes `socket` a CURVE client of the server; before connecting.
    public func apply(to socket: Socket) throws(ZeroMQError) {
        try socket.setOption(.curveServerKey, Array(serverKey.utf8))
        try socket.setOption(.curvePublicKey, Array(publicKey.utf8))
        try socket.setOption(.curveSecretKey, Array(secretKey.utf8))
    }

    private static func readFile(_ path: String, what: String) throws(RowCastClientError) -> String {
        guard let stream = fopen(path, "r") else {
            throw RowCastClientError(
                code: "invalid_key", message: "cannot read the \(what) \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(stream) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= 65536 {
            let count = fread(&buffer, 1, buffer.count, stream)
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// `name = "value"` lines of key files, as rowcastd and ZeroMQ's certificates write them.
enum KeyLine {
    /// The value of the first `name = "value"` line outside comments, or nil.
    static func value(of name: String, in text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { continue }
            guard trimmed[..<equals].filter({ $0 != " " && $0 != "\t" }) == name else { continue }
            let value = trimmed[trimmed.index(after: equals)...].filter { $0 != " " && $0 != "\t" && $0 != "\"" }
            return String(value)
        }
        return nil
    }
}
