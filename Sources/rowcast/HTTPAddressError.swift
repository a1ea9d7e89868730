/// A `--http` value that is not `HOST:PORT`.
struct HTTPAddressError: Error, CustomStringConvertible {
    /// What is wrong and how to write it.
    let description: String

    /// An error saying `description`.
    init(_ description: String) { self.description = description }
}
