import ArgumentParser
import RowCastClient

/// `--publish`: the daemon's publish endpoint, for the subcommands that receive deltas and
/// events. Falls back to ROWCAST_PUBLISH, then to the default.
struct PublishEndpointOption: ParsableArguments {
    @Option(
        name: .customLong("publish"),
        help: ArgumentHelp(
            "The daemon's publish endpoint (PUB): deltas and events. [env: ROWCAST_PUBLISH] [default: \(RowCastEndpoints.publish)]",
            valueName: "endpoint"))
    var flag: String?

    /// The endpoint in force: the flag, else ROWCAST_PUBLISH, else the default.
    var publish: String {
        EndpointSource.resolve(flag: flag, variable: "ROWCAST_PUBLISH", default: RowCastEndpoints.publish)
    }

    func validate() throws {
        try EndpointSource.validate(flag: flag, name: "--publish", variable: "ROWCAST_PUBLISH")
    }
}
