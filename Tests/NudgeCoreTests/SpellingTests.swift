import Foundation
import NudgeCore
import PropertyBased
import Testing

@Suite("Did you mean")
struct SpellingTests {
    @Test func aSlipOfTheFingersFindsTheWord() {
        #expect(Spelling.closest(to: "tomorow", among: ["today", "tomorrow"]) == "tomorrow")
        #expect(Spelling.closest(to: "fridya", among: ["friday", "monday"]) == "friday")
        #expect(Spelling.closest(to: "Grocries", among: ["Inbox", "groceries"]) == "groceries")
        #expect(Spelling.closest(to: "lsit", among: ["list", "lists"]) == "list")
    }

    @Test func aDifferentWordFindsNothing() {
        #expect(Spelling.closest(to: "parsecs", among: ["seconds", "minutes"]) == nil)
        #expect(Spelling.closest(to: "xy", among: ["in", "at"]) == nil)
    }
}
