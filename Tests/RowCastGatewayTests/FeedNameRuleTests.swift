import Testing
@testable import RowCastGateway

@Suite struct FeedNameRuleTests {
    @Test func namesOfTheProtocolAreValid() {
        #expect(FeedNameRule.isValid("cars"))
        #expect(FeedNameRule.isValid("a.b_c-D9"))
        #expect(FeedNameRule.isValid(String(repeating: "x", count: 128)))
    }

    @Test func otherNamesAreNot() {
        #expect(!FeedNameRule.isValid(""))
        #expect(!FeedNameRule.isValid("bad name"))
        #expect(!FeedNameRule.isValid("a/b"))
        #expect(!FeedNameRule.isValid("café"))
        #expect(!FeedNameRule.isValid(String(repeating: "x", count: 129)))
        #expect(FeedNameRule.problem(with: "bad name").contains("A-Z a-z 0-9 . _ -"))
    }
}
