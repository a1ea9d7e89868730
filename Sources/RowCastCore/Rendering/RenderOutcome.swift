/// What a renderer made of one item, section header or action.
public enum RenderOutcome: Sendable, Equatable {
    /// The renderer's output: a JSON object, as bytes.
    case ok([UInt8])
    /// The input was rejected (a missing or mistyped field): the item is refused.
    case rejected(message: String, field: String?, code: String?)
    /// The renderer failed on its own account.
    case failed(message: String)
    /// No renderer handles this type.
    case noRenderer
}
