import Foundation
import RowCastClient
import Testing
import ZeroMQ

/// RowCastClient reads the same variables as the CLI: ROWCAST_SERVER_KEY, ROWCAST_KEY and the
/// three endpoints.
struct CurveEnvironmentTests {
    @Test("endpoints and CURVE credentials from the environment; one key without the other is an error")
    func environment() throws {
        #expect(
            RowCastEndpoints.fromEnvironment([:]) == (
                RowCastEndpoints.ingest, RowCastEndpoints.control, RowCastEndpoints.publish
            ))
        let endpoints = RowCastEndpoints.fromEnvironment(["ROWCAST_CONTROL": "ipc:///run/rowcast/control.sock"])
        #expect(endpoints.control == "ipc:///run/rowcast/control.sock" && endpoints.ingest == RowCastEndpoints.ingest)

        #expect(try CurveCredentials.fromEnvironment([:]) == nil)
        let server = try Curve.keyPair()
        let client = try Curve.keyPair()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rowcast-key-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "secret-key = \"\(client.secretKey)\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        let credentials = try #require(
            try CurveCredentials.fromEnvironment(["ROWCAST_SERVER_KEY": server.publicKey, "ROWCAST_KEY": file]))
        #expect(credentials.serverKey == server.publicKey && credentials.publicKey == client.publicKey)
        #expect(throws: RowCastClientError.self) { try CurveCredentials.fromEnvironment(["ROWCAST_KEY": file]) }
    }

    @Test("a server.pub whose path is 40 Z85 characters, a well-formed key itself, is read as the file")
    func serverKeyFileWithAKeyShapedPath() throws {
        let server = try Curve.keyPair()
        let client = try Curve.keyPair()
        // "/tmp/rc" (7) + 16 + "/curve/server.pub" (17): 40 characters, all of them Z85.
        let directory =
            "/tmp/rc" + String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)).lowercased()
        let path = directory + "/curve/server.pub"
        #expect(path.count == 40)
        #expect(Curve.isKey(path), "the path is a well-formed key, so the file must win")
        try FileManager.default.createDirectory(atPath: directory + "/curve", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "# a comment\npublic-key = \"\(server.publicKey)\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let keyFile = directory + "/client.key"
        try "secret-key = \"\(client.secretKey)\"\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
        let credentials = try CurveCredentials.load(serverKey: path, keyFile: keyFile)
        #expect(credentials.serverKey == server.publicKey)
        // A key given as itself still is one.
        #expect(try CurveCredentials.load(serverKey: server.publicKey, keyFile: keyFile).serverKey == server.publicKey)
    }
}
