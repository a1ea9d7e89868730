import RowCastPluginHosting

/// A render job sent ahead of its use: where its outcome will be.
struct PrerenderedJob {
    /// The stream that answers it.
    var stream: any RenderStream
    /// Its index in that stream.
    var index: Int
    /// Its input, held so that no other array can take the address its ``JobInputIdentity``
    /// names while the job is waiting to be used.
    var input: [UInt8]
}
