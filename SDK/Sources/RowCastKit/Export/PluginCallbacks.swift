import CRowCastPlugin

/// The C entry points of an exported plugin: each one turns the ABI's (context, bytes, sink)
/// into a ``PluginRuntime`` call and writes the outcome to the sink in one `write`.
enum PluginCallbacks {
    /// `render_item`.
    static let renderItem: rowcast_render_fn = { context, input, length, sink in
        PluginCallbacks.call(context, input, length, sink) { $0.renderItem($1) }
    }

    /// `render_header`.
    static let renderHeader: rowcast_render_fn = { context, input, length, sink in
        PluginCallbacks.call(context, input, length, sink) { $0.renderHeader($1) }
    }

    /// `select`.
    static let select: rowcast_select_fn = { context, input, length, sink in
        PluginCallbacks.call(context, input, length, sink) { $0.select($1) }
    }

    /// `handle_action` (ABI revision 2).
    static let handleAction: rowcast_action_fn = { context, input, length, sink in
        PluginCallbacks.call(context, input, length, sink) { $0.handleAction($1) }
    }

    private static func call(
        _ context: UnsafeMutableRawPointer?,
        _ input: UnsafePointer<CChar>?,
        _ length: Int,
        _ sink: UnsafeMutablePointer<rowcast_sink>?,
        _ body: (PluginRuntime, UnsafeRawBufferPointer) -> CallOutcome
    ) -> Int32 {
        guard let context, let sink, let write = sink.pointee.write else {
            return Int32(ROWCAST_PLUGIN_ERROR.rawValue)
        }
        let runtime = Unmanaged<PluginRuntime>.fromOpaque(context).takeUnretainedValue()
        let bytes = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : max(length, 0))
        let outcome = body(runtime, bytes)
        let send = { (buffer: UnsafeBufferPointer<UInt8>) in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return }
            base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                write(sink.pointee.opaque, $0, buffer.count)
            }
        }
        if case .inOutput = outcome {
            runtime.sendOutput(send)
        } else {
            outcome.bytes.withUnsafeBufferPointer(send)
        }
        return outcome.status
    }
}
