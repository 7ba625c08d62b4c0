import Foundation
import Testing

@testable import NudgeDaemon

/// The codes nudged answers are the codes the contract lists: a code added on one side only fails here.
@Suite struct APIFailureCodeTests {
    /// The backquoted codes of the `Error` schema's `code` description, in the document nudged serves.
    private static func contractCodes() throws -> Set<String> {
        let lines = openAPIDocument.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(
            lines.firstIndex { $0.hasPrefix("            code:") },
            "the Error schema's code in docs/openapi.yaml"
        )
        // The description runs until the next property at the code's own indentation.
        let description = lines[(start + 1)...].prefix {
            !$0.hasPrefix("            ") || $0.hasPrefix("             ")
        }
        let text = description.joined(separator: "\n")
        let codes = text.matches(of: /`([a-z_]+)`/).map { String($0.output.1) }
        return Set(codes).subtracting(["store_"])
    }

    @Test func everyCodeNudgedAnswersIsInTheContractAndNoOtherIs() throws {
        let answered = Set(APIFailure.Code.allCases.map(\.description))
        let listed = try Self.contractCodes()
        #expect(listed.count > 30, "the contract's list was read: \(listed.sorted())")
        #expect(
            answered.subtracting(listed).isEmpty,
            "answered but not in the contract: \(answered.subtracting(listed))"
        )
        #expect(
            listed.subtracting(answered).isEmpty,
            "in the contract but never answered: \(listed.subtracting(answered))"
        )
    }

    @Test func noTwoCasesShareACode() {
        let codes = APIFailure.Code.allCases.map(\.description)
        #expect(codes.count == Set(codes).count, "\(codes.sorted())")
    }
}
