/// The version of rowcastd and rowcast.
public enum RowCastVersion {
    /// The current release.
    public static let current = "0.1.0"
}
