import Testing

@testable import RowCastGateway

@Suite struct TokenModeTests {
    /// Whether `mode` requires tokens, or the start of the line it refuses to start with.
    func answer(_ mode: TokenMode, keys: Bool, loopback: Bool, plain: Bool = false) -> String {
        switch mode.requiresTokens(hasKeys: keys, isLoopback: loopback, plainHTTPAllowed: plain) {
        case .success(let required): required ? "required" : "off"
        case .failure(let problem): String(problem.message.prefix(20))
        }
    }

    @Test func autoRequiresTokensWithAKeyOrBeyondLoopback() {
        #expect(answer(.auto, keys: false, loopback: true) == "off")
        #expect(answer(.auto, keys: true, loopback: true) == "required")
        #expect(answer(.auto, keys: false, loopback: false) == "beyond loopback the ")
        #expect(answer(.auto, keys: true, loopback: false) == "the gateway serves p")
        #expect(answer(.auto, keys: true, loopback: false, plain: true) == "required")
    }

    @Test func requiredNeedsAKeyAndOffNeverAsks() {
        #expect(answer(.required, keys: false, loopback: true) == "--tokens required ne")
        #expect(answer(.required, keys: true, loopback: true) == "required")
        #expect(answer(.off, keys: true, loopback: false) == "off")
        #expect(answer(.off, keys: false, loopback: false) == "off")
    }

    @Test func theRefusalNamesTheFlag() {
        guard
            case .failure(let problem) = TokenMode.auto.requiresTokens(
                hasKeys: false, isLoopback: false, plainHTTPAllowed: false)
        else {
            Issue.record("beyond loopback without a key was accepted")
            return
        }
        #expect(problem.message.contains("--token-secret-file") && problem.message.contains("--tokens off"))
    }

    @Test func globsAreTheKeyFilesRule() {
        let grant = TokenGrant(
            user: "u", expires: .distantFuture, feeds: ["team-?": [.read], "[ab]*": [.read], "cars*": [.select]])
        #expect(grant.allows(.read, feed: "team-1") && !grant.allows(.read, feed: "team-12"))
        #expect(grant.allows(.read, feed: "apples") && grant.allows(.read, feed: "bikes"))
        #expect(!grant.allows(.read, feed: "cars") && grant.allows(.select, feed: "cars-new"))
    }
}
