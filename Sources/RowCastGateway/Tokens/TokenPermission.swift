/// What a user token grants on the feeds its patterns match (docs/PROTOCOL.md, "User tokens").
public enum TokenPermission: String, Sendable, CaseIterable {
    /// Open the feed's page and stream.
    case read
    /// Run a row's action (`POST /feeds/NAME/rows/ID/select`).
    case select
}
