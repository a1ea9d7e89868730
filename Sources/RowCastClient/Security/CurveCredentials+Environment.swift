#if canImport(Glibc)
import Glibc
#endif

extension CurveCredentials {
    /// The credentials named by `ROWCAST_SERVER_KEY` (a Z85 key or the daemon's server.pub) and
    /// `ROWCAST_KEY` (the key file of `rowcast keygen`) in `environment`; nil when neither is
    /// set, an `invalid_key` error when only one is.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessEnvironment.variables
    ) throws(RowCastClientError) -> CurveCredentials? {
        let serverKey = environment["ROWCAST_SERVER_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        let keyFile = environment["ROWCAST_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        switch (serverKey, keyFile) {
        case (nil, nil): return nil
        case (let serverKey?, let keyFile?): return try load(serverKey: serverKey, keyFile: keyFile)
        case (nil, _?):
            throw RowCastClientError(
                code: "invalid_key",
                message:
                    "ROWCAST_KEY is set but ROWCAST_SERVER_KEY is not: give the daemon's public key (its server.pub) too"
            )
        case (_?, nil):
            throw RowCastClientError(
                code: "invalid_key",
                message:
                    "ROWCAST_SERVER_KEY is set but ROWCAST_KEY is not: give this client's key file (rowcast keygen) too"
            )
        }
    }
}

extension RowCastEndpoints {
    /// The endpoints named by `ROWCAST_INGEST`, `ROWCAST_CONTROL` and `ROWCAST_PUBLISH` in
    /// `environment`, each defaulting to the daemon's default endpoint.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessEnvironment.variables
    ) -> (ingest: String, control: String, publish: String) {
        func value(_ name: String, _ fallback: String) -> String {
            environment[name].flatMap { $0.isEmpty ? nil : $0 } ?? fallback
        }
        return (value("ROWCAST_INGEST", ingest), value("ROWCAST_CONTROL", control), value("ROWCAST_PUBLISH", publish))
    }
}

/// The process environment, read without Foundation.
public enum ProcessEnvironment {
    /// Every variable of this process.
    public static var variables: [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }
}
