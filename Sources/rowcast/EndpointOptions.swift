import ArgumentParser
import RowCastClient

/// The daemon's endpoints and the reply timeout, shared by every subcommand.
struct EndpointOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The daemon's control endpoint (ROUTER): acked requests and queries.", valueName: "endpoint"))
    var control = RowCastEndpoints.control

    @Option(help: ArgumentHelp("The daemon's publish endpoint (PUB): deltas and events.", valueName: "endpoint"))
    var publish = RowCastEndpoints.publish

    @Option(help: ArgumentHelp("The daemon's ingest endpoint (PULL): requests sent with --no-ack.", valueName: "endpoint"))
    var ingest = RowCastEndpoints.ingest

    @Option(help: ArgumentHelp("Seconds to wait for each reply (and, for subscribe with --count or --until-seq, for each next message) before giving up.", valueName: "seconds"))
    var timeout: Double = 5

    func validate() throws {
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
    }

    /// ``timeout`` as a duration.
    var timeoutDuration: Duration { .seconds(fractional: timeout) }

    /// A control client for this run.
    func makeControlClient() throws(RowCastClientError) -> ControlClient {
        try ControlClient(endpoint: control, timeout: timeoutDuration, clientName: "rowcast")
    }
}
