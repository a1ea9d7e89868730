import ArgumentParser
import RowCastClient

/// `--ingest`: the daemon's ingest endpoint, for `publish --no-ack`. Falls back to
/// ROWCAST_INGEST, then to the default.
struct IngestEndpointOption: ParsableArguments {
    @Option(
        name: .customLong("ingest"),
        help: ArgumentHelp(
            "The daemon's ingest endpoint (PULL): requests sent with --no-ack. [env: ROWCAST_INGEST] [default: \(RowCastEndpoints.ingest)]",
            valueName: "endpoint"))
    var flag: String?

    /// The endpoint in force: the flag, else ROWCAST_INGEST, else the default.
    var ingest: String {
        EndpointSource.resolve(flag: flag, variable: "ROWCAST_INGEST", default: RowCastEndpoints.ingest)
    }

    func validate() throws {
        try EndpointSource.validate(flag: flag, name: "--ingest", variable: "ROWCAST_INGEST")
    }
}
