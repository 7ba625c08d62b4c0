import Foundation
import NudgeCore
@_spi(Generated) import OpenAPIRuntime

/// `ItemPatch` in the document (`PATCH /v1/items/{id}`), written by hand: fields left out stay as they are, and
/// `"dueDate": null` removes the due date, `"repeat": null` the repeat rule. A generated type reads a null field and a missing one alike
/// (swift-openapi-generator issue 419), so it could not say which the client meant.
public struct ItemPatch: Codable, Hashable, Sendable {
    /// The fields the patch changes, as the core takes them; a list named by its ID is already in `edit.listID`.
    public var edit: ItemEdit
    /// The list to move to, named by its name (`"list"`); nudged resolves it to an ID.
    public var list: String?
    /// New advance warnings as the client wrote them (`["PT1H"]`; `[]` or `null` removes them). nudged reads them
    /// into `edit.warnings` itself, so that one it cannot read is refused as `invalid_warning`, as in a new item;
    /// until then `edit.warnings` is nil.
    public var warnings: [String]?

    public init(_ edit: ItemEdit, list: String? = nil) {
        self.edit = edit
        self.edit.warnings = nil
        self.list = list
        warnings = edit.warnings?.map(DurationText.iso8601)
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case text, checked, dueDate, shouldRemind, listID, list, priority, catchUp, warnings
        case repeatRule = "repeat"
    }

    public init(from decoder: any Decoder) throws {
        // The same refusal of unknown fields, and the same message, as the generated types.
        try decoder.ensureNoAdditionalProperties(knownKeys: Set(CodingKeys.allCases.map(\.rawValue)))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let clearsDueDate = container.contains(.dueDate) ? try container.decodeNil(forKey: .dueDate) : false
        let clearsRepeat = container.contains(.repeatRule) ? try container.decodeNil(forKey: .repeatRule) : false
        let clearsCatchUp = container.contains(.catchUp) ? try container.decodeNil(forKey: .catchUp) : false
        edit = ItemEdit(
            text: try container.decodeIfPresent(String.self, forKey: .text),
            checked: try container.decodeIfPresent(Bool.self, forKey: .checked),
            dueDate: clearsDueDate ? nil : try container.decodeIfPresent(Instant.self, forKey: .dueDate)?.date,
            clearsDueDate: clearsDueDate,
            shouldRemind: try container.decodeIfPresent(Bool.self, forKey: .shouldRemind),
            listID: try container.decodeIfPresent(Int.self, forKey: .listID),
            repeatRule: clearsRepeat ? nil : try container.decodeIfPresent(String.self, forKey: .repeatRule),
            clearsRepeat: clearsRepeat,
            priority: try container.decodeIfPresent(Priority.self, forKey: .priority),
            catchUp: clearsCatchUp ? nil : try container.decodeIfPresent(CatchUp.self, forKey: .catchUp),
            clearsCatchUp: clearsCatchUp
        )
        list = try container.decodeIfPresent(String.self, forKey: .list)
        let clearsWarnings = container.contains(.warnings) ? try container.decodeNil(forKey: .warnings) : false
        warnings = clearsWarnings ? [] : try container.decodeIfPresent([String].self, forKey: .warnings)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(edit.text, forKey: .text)
        try container.encodeIfPresent(edit.checked, forKey: .checked)
        if edit.clearsDueDate {
            try container.encodeNil(forKey: .dueDate)
        } else {
            try container.encodeIfPresent(edit.dueDate.map(Instant.init), forKey: .dueDate)
        }
        try container.encodeIfPresent(edit.shouldRemind, forKey: .shouldRemind)
        if edit.clearsRepeat {
            try container.encodeNil(forKey: .repeatRule)
        } else {
            try container.encodeIfPresent(edit.repeatRule, forKey: .repeatRule)
        }
        try container.encodeIfPresent(edit.priority, forKey: .priority)
        if edit.clearsCatchUp {
            try container.encodeNil(forKey: .catchUp)
        } else {
            try container.encodeIfPresent(edit.catchUp, forKey: .catchUp)
        }
        try container.encodeIfPresent(edit.listID, forKey: .listID)
        try container.encodeIfPresent(list, forKey: .list)
        try container.encodeIfPresent(warnings, forKey: .warnings)
    }
}
