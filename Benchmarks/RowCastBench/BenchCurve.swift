import Foundation
import ZeroMQ

/// CURVE for a benchmark run: a keys directory admitting one client ("bench", every
/// permission), the arguments that turn CURVE on, and the client options once the daemon's
/// public key is known.
struct BenchCurve {
    /// The client keys directory.
    let clients: String
    /// The client's key pair.
    let publicKey: String
    let secretKey: String
    /// The daemon's public key, once connected.
    var serverKey = ""

    /// A keys directory with a fresh client key pair in it.
    init() throws {
        clients =
            FileManager.default.temporaryDirectory.appendingPathComponent("rowcast-bench-clients-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: clients, withIntermediateDirectories: true)
        (publicKey, secretKey) = try Curve.keyPair()
        try "public-key = \"\(publicKey)\"\nallow = \"all *\"\n".write(
            toFile: clients + "/bench.key", atomically: true, encoding: .utf8)
    }

    /// rowcastd's options for CURVE with this keys directory.
    var daemonArguments: [String] { ["--curve", "--curve-clients", clients] }

    /// These keys with the daemon's public key, read from the server.pub it wrote.
    func connected(to daemon: BenchDaemon) throws -> BenchCurve {
        let text = try String(contentsOfFile: daemon.stateDirectory + "/curve/server.pub", encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("public-key") }) else {
            throw BenchFailure("no public-key in \(daemon.stateDirectory)/curve/server.pub")
        }
        var copy = self
        copy.serverKey = String(line.split(separator: "\"")[1])
        return copy
    }

    /// Makes `socket` a CURVE client; before connecting.
    func apply(to socket: Socket) throws {
        try socket.setOption(.curveServerKey, Array(serverKey.utf8))
        try socket.setOption(.curvePublicKey, Array(publicKey.utf8))
        try socket.setOption(.curveSecretKey, Array(secretKey.utf8))
    }

    /// Removes the keys directory.
    func remove() { try? FileManager.default.removeItem(atPath: clients) }
}
