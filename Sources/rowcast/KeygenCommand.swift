import ArgumentParser
import Foundation
import RowCastClient

/// `rowcast keygen NAME`: a CURVE key pair for one client.
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write a CURVE key pair for a client: NAME.key (secret) and NAME.pub (public).",
        discussion: """
            NAME.key (mode 0600) holds the pair: keep it with the client and give it as --key \
            (or ROWCAST_KEY). NAME.pub holds only the public key: install it on the daemon's host \
            as /etc/rowcast/clients/NAME.key (owned by root, not writable by others), add allow \
            lines for what the client may do, and reload rowcastd. The daemon calls the client \
            NAME. Existing files are never overwritten.

            Example:
              rowcast keygen cars-producer
              sudo install -m 0644 cars-producer.pub /etc/rowcast/clients/cars-producer.key
              echo 'allow = "publish,reset cars*"' | sudo tee -a /etc/rowcast/clients/cars-producer.key
              sudo systemctl reload rowcastd
              rowcast publish --server-key /var/lib/rowcast/curve/server.pub --key cars-producer.key ...
            """
    )

    @Argument(help: ArgumentHelp("The client's name: letters, digits, '-', '_' and '.'.", valueName: "name"))
    var name: String

    @Option(help: ArgumentHelp("Where to write the two files.", valueName: "dir"))
    var directory = "."

    func validate() throws {
        guard !name.isEmpty, !name.hasPrefix("."),
            name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." })
        else {
            throw ValidationError(
                "a client name may hold letters, digits, '-', '_' and '.' (and not start with '.'), got \"\(name)\"")
        }
    }

    func run() throws {
        try reportingErrors {
            let pair = try CurveCredentials.newKeyPair()
            let base = (directory.hasSuffix("/") ? directory : directory + "/") + name
            try Self.create(
                base + ".key", mode: 0o600,
                text: """
                    # rowcast CURVE key pair of client \(name). Keep it secret: rowcast --key \(base).key
                    public-key = "\(pair.publicKey)"
                    secret-key = "\(pair.secretKey)"

                    """)
            try Self.create(
                base + ".pub", mode: 0o644,
                text: """
                    # rowcast CURVE public key of client \(name). On the daemon's host, install it as
                    # /etc/rowcast/clients/\(name).key and add what the client may do, e.g.
                    #   allow = "publish,reset cars*"
                    #   allow = "read *"
                    public-key = "\(pair.publicKey)"

                    """)
            print(
                "wrote \(base).key (secret: keep it with the client) and \(base).pub (install on the daemon as /etc/rowcast/clients/\(name).key)"
            )
            print("public key: \(pair.publicKey)")
        }
    }

    private static func create(_ path: String, mode: mode_t, text: String) throws(RowCastClientError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw RowCastClientError(
                code: "cannot_write",
                message:
                    "cannot create \(path): \(String(cString: strerror(errno)))\(errno == EEXIST ? "; keygen never overwrites a key: remove it first or choose another name" : "")"
            )
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count else {
            throw RowCastClientError(
                code: "cannot_write", message: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
