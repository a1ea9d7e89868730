import Testing
@testable import RowCastGateway

@Suite struct SelectBodyTests {
    @Test func anEmptyBodyIsTheSelectAction() throws {
        #expect(try FeedGateway.action(in: []) == "select")
        #expect(try FeedGateway.action(in: Array(" \n".utf8)) == "select")
        #expect(try FeedGateway.action(in: Array("{}".utf8)) == "select")
    }

    @Test func theBodyNamesTheAction() throws {
        #expect(try FeedGateway.action(in: Array(#"{"action":"buy"}"#.utf8)) == "buy")
    }

    @Test(arguments: [#"{"acton":"x"}"#, #"{"action":3}"#, #"{"action":""}"#, "[1]", "{", "select"])
    func otherBodiesAreRefused(body: String) {
        #expect(throws: GatewayError.self) { try FeedGateway.action(in: Array(body.utf8)) }
    }

    @Test func daemonCodesMapToHTTPStatuses() {
        #expect(DaemonErrorStatus.status(for: "not_found") == .notFound)
        #expect(DaemonErrorStatus.status(for: "forbidden") == .forbidden)
        #expect(DaemonErrorStatus.status(for: "no_action") == .conflict)
        #expect(DaemonErrorStatus.status(for: "timeout") == .gatewayTimeout)
        #expect(DaemonErrorStatus.status(for: "plugin_crashed") == .badGateway)
        #expect(DaemonErrorStatus.status(for: "invalid_field") == .badRequest)
    }
}
