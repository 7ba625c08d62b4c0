import Foundation
import NudgeAPI
import NudgeCore
import Testing

/// `ItemPatch`, the hand-written merge patch: a field left out, a `null` and a value each mean what the document says.
@Suite struct ItemPatchTests {
    private func decode(_ json: String) throws -> ItemPatch {
        try JSONDecoder().decode(ItemPatch.self, from: Data(json.utf8))
    }

    @Test func warningsLeftOutStayAndAnEmptyListOrNullRemovesThem() throws {
        #expect(try decode(#"{"text": "x"}"#).warnings == nil)
        #expect(try decode(#"{"warnings": []}"#).warnings == [])
        #expect(try decode(#"{"warnings": null}"#).warnings == [])
        #expect(try decode(#"{"warnings": ["PT1H", "PT10M"]}"#).warnings == ["PT1H", "PT10M"])
        // Read by nudged, not by the decoder: one it cannot read is refused as invalid_warning, as in a new item.
        #expect(try decode(#"{"warnings": ["soon"]}"#).warnings == ["soon"])
    }

    @Test func warningsGoOverTheWireOnceAndReadBackTheSame() throws {
        let patch = ItemPatch(ItemEdit(text: "x", warnings: [3600, 600]))
        #expect(patch.edit.warnings == nil, "the warnings travel as text, in one place")
        #expect(patch.warnings == ["PT1H", "PT10M"])
        let decoded = try JSONDecoder().decode(ItemPatch.self, from: try JSONEncoder().encode(patch))
        #expect(decoded == patch)
        #expect(try decoded.warnings.map(Warnings.parse) == [3600, 600])
    }

    /// Either kind of repeat set with the other null switches to it; either null alone ends the repeating.
    @Test func aRepeatSetBeatsTheOtherKindsNullAndANullAloneEndsIt() throws {
        let toRule = try decode(#"{"repeat": "weekly", "repeatAfter": null}"#)
        #expect(toRule.edit.repeatRule == "weekly" && !toRule.edit.clearsRepeat && toRule.repeatAfter == nil)
        let toLength = try decode(#"{"repeat": null, "repeatAfter": "P2W"}"#)
        #expect(toLength.edit.repeatRule == nil && !toLength.edit.clearsRepeat && toLength.repeatAfter == "P2W")
        for ending in [#"{"repeat": null}"#, #"{"repeatAfter": null}"#, #"{"repeat": null, "repeatAfter": null}"#] {
            let patch = try decode(ending)
            #expect(patch.edit.clearsRepeat && patch.edit.repeatRule == nil && patch.repeatAfter == nil, "\(ending)")
        }
        let encoded = try JSONDecoder().decode(
            ItemPatch.self,
            from: try JSONEncoder().encode(ItemPatch(ItemEdit(repeatAfter: 14 * 86_400)))
        )
        #expect(encoded.repeatAfter == "P14D" && !encoded.edit.clearsRepeat)
    }
}
