import Testing

@testable import RowCastGateway

@Suite struct SelectBodyTests {
    @Test func anEmptyBodyIsTheSelectAction() throws {
        for body in ["", " \n", "{}"] {
            let select = try FeedGateway.selectBody(Array(body.utf8))
            #expect(select.action == "select" && select.value == .none, "\(body)")
        }
    }

    @Test func theBodyNamesTheActionAndItsValue() throws {
        #expect(try FeedGateway.selectBody(Array(#"{"action":"buy"}"#.utf8)).action == "buy")
        let edit = try FeedGateway.selectBody(Array(#"{"action":"edit_email","value":"ann@example.com"}"#.utf8))
        #expect(edit.action == "edit_email" && edit.value == "ann@example.com")
        let toggle = try FeedGateway.selectBody(Array(#"{"value":false,"action":"star"}"#.utf8))
        #expect(toggle.action == "star" && toggle.value == false)
        #expect(try FeedGateway.selectBody(Array(#"{"action":"x","value":null}"#.utf8)).value == .none, "null is none")
    }

    @Test(arguments: [#"{"acton":"x"}"#, #"{"action":3}"#, #"{"action":""}"#, "[1]", "{", "select"])
    func otherBodiesAreRefused(body: String) {
        #expect(throws: GatewayError.self) { try FeedGateway.selectBody(Array(body.utf8)) }
    }

    @Test func daemonCodesMapToHTTPStatuses() {
        #expect(DaemonErrorStatus.status(for: "not_found") == .notFound)
        #expect(DaemonErrorStatus.status(for: "forbidden") == .forbidden)
        #expect(DaemonErrorStatus.status(for: "no_action") == .conflict)
        #expect(DaemonErrorStatus.status(for: "timeout") == .gatewayTimeout)
        #expect(DaemonErrorStatus.status(for: "plugin_crashed") == .badGateway)
        #expect(DaemonErrorStatus.status(for: "plugin_unavailable") == .serviceUnavailable)
        #expect(DaemonErrorStatus.status(for: "invalid_field") == .badRequest)
        #expect(DaemonErrorStatus.status(for: "unknown_action") == .badRequest)
        #expect(DaemonErrorStatus.status(for: "invalid_value") == .unprocessableContent)
    }
}
