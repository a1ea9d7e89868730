import ArgumentParser
import RowCastClient
import RowCastJSON

/// `--control`: the daemon's control endpoint, for the subcommands that send requests or
/// queries. Falls back to ROWCAST_CONTROL, then to the default.
struct ControlEndpointOption: ParsableArguments {
    @Option(
        name: .customLong("control"),
        help: ArgumentHelp(
            "The daemon's control endpoint (ROUTER): acked requests and queries. [env: ROWCAST_CONTROL] [default: \(RowCastEndpoints.control)]",
            valueName: "endpoint"))
    var flag: String?

    /// The endpoint in force: the flag, else ROWCAST_CONTROL, else the default.
    var control: String {
        EndpointSource.resolve(flag: flag, variable: "ROWCAST_CONTROL", default: RowCastEndpoints.control)
    }

    func validate() throws {
        try EndpointSource.validate(flag: flag, name: "--control", variable: "ROWCAST_CONTROL")
    }

    /// A control client for this run, with a client name of its own (the daemon answers a
    /// repeated client and req with its first answer, so names are never shared). A daemon
    /// that is not listening, or refuses the handshake, is reported at once.
    func makeClient(_ connection: ConnectionOptions) throws(RowCastClientError) -> ControlClient {
        try ControlClient(
            endpoint: control, timeout: connection.timeoutDuration, clientName: AckedPublisher.randomClientID(),
            curve: try connection.curve(), reportsRefusal: true)
    }
}
