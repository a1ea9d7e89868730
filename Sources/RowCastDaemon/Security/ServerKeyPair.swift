import ZeroMQ

#if canImport(Glibc)
import Glibc
#endif

/// rowcastd's CURVE key pair: read from `curve_server_key`, or generated there on first start
/// (default `<state_directory>/curve/server.key`, mode 0600), with the public key beside it
/// in `server.pub` for clients (`rowcast --server-key FILE`).
public struct ServerKeyPair: Sendable {
    /// The public key, 40 characters of Z85: what clients give as `--server-key`.
    public let publicKey: String
    /// The secret key, 40 characters of Z85.
    let secretKey: String
    /// The file the pair was read from (or written to).
    public let file: String

    /// The key file for `configuration`: `curve_server_key`, or the default in the state directory.
    public static func path(for configuration: DaemonConfiguration) -> String {
        configuration.curveServerKey.isEmpty
            ? configuration.stateDirectory + "/curve/server.key" : configuration.curveServerKey
    }

    /// The public key file written beside a generated secret key file.
    public static func publicPath(of path: String) -> String {
        (path.hasSuffix(".key") ? String(path.dropLast(4)) : path) + ".pub"
    }

    /// Reads the pair from `path`, or generates it there when the file does not exist (its
    /// directory is created with mode 0700 when missing).
    public static func loadOrCreate(_ path: String) throws(KeyFileError) -> ServerKeyPair {
        if access(path, F_OK) == 0 { return try load(path) }
        guard errno == ENOENT else {
            throw KeyFileError(
                file: path, problem: "cannot check the server key file: \(String(cString: strerror(errno)))")
        }
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !directory.isEmpty, access(directory, F_OK) != 0, mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw KeyFileError(
                file: directory,
                problem: "cannot create the directory of the server key: \(String(cString: strerror(errno)))")
        }
        let pair: (publicKey: String, secretKey: String)
        do {
            pair = try Curve.keyPair()
        } catch {
            throw KeyFileError(file: path, problem: "cannot generate a CURVE key pair: \(error)")
        }
        try SmallFile.create(
            path, mode: 0o600,
            text: """
                # rowcastd's CURVE key pair, generated on first start. Keep it secret: whoever has it can
                # pose as this server. Clients need only the public key (server.pub beside this file).
                public-key = "\(pair.publicKey)"
                secret-key = "\(pair.secretKey)"

                """)
        let publicFile = publicPath(of: path)
        if access(publicFile, F_OK) != 0 {
            try SmallFile.create(
                publicFile, mode: 0o644,
                text: """
                    # rowcastd's CURVE public key: clients connect with rowcast --server-key \(publicFile)
                    # (or --server-key \(pair.publicKey), or ROWCAST_SERVER_KEY).
                    public-key = "\(pair.publicKey)"

                    """)
        }
        return ServerKeyPair(publicKey: pair.publicKey, secretKey: pair.secretKey, file: path)
    }

    /// Reads the pair from `path`; the public key is derived from the secret one when absent.
    public static func load(_ path: String) throws(KeyFileError) -> ServerKeyPair {
        let text = try SmallFile.readTrusted(path, what: "server key file", secret: true)
        guard let secret = KeyFileText.value(of: "secret-key", in: text), Curve.isKey(secret) else {
            throw KeyFileError(
                file: path,
                problem:
                    "no secret-key = \"...\" line with 40 characters of Z85; give a file written by rowcastd (or rowcast keygen), or remove it to have a new pair generated"
            )
        }
        let derived: String
        do {
            derived = try Curve.publicKey(ofSecret: secret)
        } catch {
            throw KeyFileError(file: path, problem: "the secret key is not a CURVE key: \(error)")
        }
        if let stated = KeyFileText.value(of: "public-key", in: text), stated != derived {
            throw KeyFileError(
                file: path,
                problem: "its public-key does not belong to its secret-key; fix or remove the public-key line")
        }
        return ServerKeyPair(publicKey: derived, secretKey: secret, file: path)
    }
}
