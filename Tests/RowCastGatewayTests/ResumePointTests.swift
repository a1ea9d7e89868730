import Testing
@testable import RowCastGateway

@Suite struct ResumePointTests {
    @Test func neitherValueIsNoResume() throws {
        #expect(try ResumePoint.parse(since: nil, epoch: nil) == nil)
    }

    @Test func sinceWithEpochResumes() throws {
        #expect(try ResumePoint.parse(since: "42", epoch: "7d0c") == ResumePoint(seq: 42, epoch: "7d0c"))
        #expect(try ResumePoint.parse(since: "0", epoch: nil) == ResumePoint(seq: 0, epoch: nil))
    }

    @Test(
        arguments: [
            ("abc", "e", "since=abc"), ("-1", "e", "since=-1"), ("1.5", "e", "since=1.5"), ("", "e", "since="),
            ("99999999999999999999", "e", "is not a seq"), ("3", nil, "needs epoch"),
        ] as [(String, String?, String)])
    func badSinceIsRefusedNamingIt(since: String, epoch: String?, text: String) {
        #expect {
            try ResumePoint.parse(since: since, epoch: epoch)
        } throws: { error in
            guard let error = error as? GatewayError else { return false }
            return error.status == .badRequest && error.message.contains(text)
        }
    }

    @Test func epochWithoutSinceIsRefused() {
        #expect(throws: GatewayError.self) { try ResumePoint.parse(since: nil, epoch: "e") }
        #expect(throws: GatewayError.self) { try ResumePoint.parse(since: "1", epoch: "") }
    }
}
