extension ErrorCode {
    /// The authenticated client lacks the permission the request needs on its feed (the
    /// message names both): nothing was applied.
    public static let forbidden = ErrorCode(rawValue: "forbidden")
}
