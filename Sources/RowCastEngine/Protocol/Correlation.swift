import RowCastJSON

/// The correlation fields (`op`, `feed`, `req`, `client`) read from the first bytes of a
/// message too large to take: the top-level members are read in order until the bytes run out
/// or stop being valid JSON, so a `req` sent before the bulk of the request (as RowCastClient
/// sends it) is echoed in the `too_large` reply.
struct Correlation {
    /// The `op`, when a string `op` came before the cut.
    var op: String?
    /// The `feed`, when a string `feed` came before the cut.
    var feed: String?
    /// The `req`, when a string or number `req` came before the cut.
    var req: RequestID?
    /// The `client`, when a string `client` came before the cut.
    var client: String?

    /// Reads what it can of `prefix`; never throws.
    init(prefix: [UInt8]) {
        var found = Correlation(op: nil, feed: nil, req: nil, client: nil)
        // The read ends with an error at the cut; what was found before it is kept.
        _ = try? JSONParser.read(prefix) { reader in
            try reader.beginObject()
            while let key = try reader.nextKey() {
                switch key {
                case "req":
                    let range = try reader.skipValue()
                    found.req = RequestID(prefix, range: range)
                case "op", "feed", "client":
                    let value = try reader.readValue().stringValue
                    if key == "op" {
                        found.op = value
                    } else if key == "feed" {
                        found.feed = value
                    } else {
                        found.client = value
                    }
                default:
                    try reader.skipValue()
                }
            }
        }
        self = found
    }

    private init(op: String?, feed: String?, req: RequestID?, client: String?) {
        self.op = op
        self.feed = feed
        self.req = req
        self.client = client
    }
}
