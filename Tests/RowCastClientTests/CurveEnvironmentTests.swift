import Foundation
import RowCastClient
import Testing
import ZeroMQ

/// RowCastClient reads the same variables as the CLI: ROWCAST_SERVER_KEY, ROWCAST_KEY and the
/// three endpoints.
struct CurveEnvironmentTests {
    @Test("endpoints and CURVE credentials from the environment; one key without the other is an error")
    func environment() throws {
        #expect(RowCastEndpoints.fromEnvironment([:]) == (RowCastEndpoints.ingest, RowCastEndpoints.control, RowCastEndpoints.publish))
        let endpoints = RowCastEndpoints.fromEnvironment(["ROWCAST_CONTROL": "ipc:///run/rowcast/control.sock"])
        #expect(endpoints.control == "ipc:///run/rowcast/control.sock" && endpoints.ingest == RowCastEndpoints.ingest)

        #expect(try CurveCredentials.fromEnvironment([:]) == nil)
        let server = try Curve.keyPair()
        let client = try Curve.keyPair()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rowcast-key-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "secret-key = \"\(client.secretKey)\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        let credentials = try #require(try CurveCredentials.fromEnvironment(["ROWCAST_SERVER_KEY": server.publicKey, "ROWCAST_KEY": file]))
        #expect(credentials.serverKey == server.publicKey && credentials.publicKey == client.publicKey)
        #expect(throws: RowCastClientError.self) { try CurveCredentials.fromEnvironment(["ROWCAST_KEY": file]) }
    }
}
