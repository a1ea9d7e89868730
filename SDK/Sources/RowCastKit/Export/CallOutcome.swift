import CRowCastPlugin

/// The result of one plugin call before it is written to the ABI sink.
enum CallOutcome {
    /// Success: these JSON bytes go to the sink with `ROWCAST_OK`.
    case ok([UInt8])
    /// Success: the JSON is in the runtime's output buffer, where the call wrote it (a rendered
    /// row: no array of its own per call), and goes to the sink with `ROWCAST_OK`
    /// (``PluginRuntime/sendOutput(_:)``).
    case inOutput
    /// The input was rejected: the error's JSON goes to the sink with `ROWCAST_ITEM_ERROR`.
    case itemError(ItemError)

    /// The ABI status code.
    var status: Int32 {
        switch self {
        case .ok, .inOutput: return Int32(ROWCAST_OK.rawValue)
        case .itemError: return Int32(ROWCAST_ITEM_ERROR.rawValue)
        }
    }

    /// The bytes to write, when they are not in the runtime's output.
    var bytes: [UInt8] {
        switch self {
        case .ok(let bytes): return bytes
        case .inOutput: return []
        case .itemError(let error): return error.jsonValue.serialized()
        }
    }
}
