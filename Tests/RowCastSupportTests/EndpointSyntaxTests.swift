import RowCastSupport
import Testing

/// `EndpointSyntax`: the endpoint check rowcastd and rowcast share.
@Suite struct EndpointSyntaxTests {
    @Test(
        "transport://address with a known transport is an endpoint",
        arguments: [
            "tcp://127.0.0.1:7702", "ipc:///run/rowcast/control.sock", "inproc://rowcast", "tcp://[::1]:7701",
            "ws://127.0.0.1:80/x",
        ])
    func valid(_ endpoint: String) {
        #expect(EndpointSyntax.isValid(endpoint))
        #expect(EndpointSyntax.problem(with: endpoint) == nil)
    }

    @Test(
        "no transport, an unknown one, or no address is refused",
        arguments: [
            "127.0.0.1:7702", "localhost", "", "tcp://", "http://127.0.0.1:80", "tcp:/127.0.0.1:1", "TCP://127.0.0.1:1",
        ])
    func invalid(_ endpoint: String) {
        #expect(!EndpointSyntax.isValid(endpoint))
    }

    @Test("the problem names what is allowed and quotes what was given")
    func problemText() {
        #expect(
            EndpointSyntax.problem(with: "127.0.0.1:7702")
                == "must be a ZeroMQ endpoint such as \"tcp://127.0.0.1:7701\" or "
                + "\"ipc:///run/rowcast/control.sock\" (transports: tcp, ipc, inproc, pgm, epgm, ws, wss, vmci, tipc), got \"127.0.0.1:7702\""
        )
    }
}
