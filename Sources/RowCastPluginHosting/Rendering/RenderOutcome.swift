/// What a renderer made of one item, section header or action.
public enum RenderOutcome: Sendable, Equatable {
    /// The renderer's output: a JSON object, as bytes.
    case ok([UInt8])
    /// The input was rejected (a missing or mistyped field): the item is refused.
    case rejected(message: String, field: String?, code: String?)
    /// The renderer failed on its own account.
    case failed(message: String)
    /// The plugin's host crashed or hung on this input: the item is quarantined.
    case faulted(PluginFaultReport)
    /// No renderer handles this type.
    case noRenderer
}

extension RenderOutcome {
    /// The outcome of a plugin call's result.
    public init(_ result: PluginCallResult) {
        switch result {
        case .ok(let bytes): self = .ok(bytes)
        case .rejected(let error): self = .rejected(message: error.message, field: error.field, code: error.code)
        case .failed(let error): self = .failed(message: error.message)
        }
    }
}
