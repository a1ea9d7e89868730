extension ErrorCode {
    /// The durable store could not commit the batch the request was read with: nothing of it
    /// was applied; retry later (the message says why, e.g. the disk is full).
    public static let storageError = ErrorCode(rawValue: "storage_error")
}
