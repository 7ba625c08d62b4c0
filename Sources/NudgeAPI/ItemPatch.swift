import Foundation
import NudgeCore
@_spi(Generated) import OpenAPIRuntime

/// `ItemPatch` in the document (`PATCH /v1/items/{id}`), written by hand: fields left out stay as they are, and
/// `"dueDate": null` (or `"dueDay": null`) removes the due date, `"repeat": null` (or `"repeatAfter": null`) the
/// repeating. A generated type reads a null field and a missing one alike (swift-openapi-generator issue 419), so it
/// could not say which the client meant.
public struct ItemPatch: Codable, Hashable, Sendable {
    /// The fields the patch changes, as the core takes them; a list named by its ID is already in `edit.listID`.
    public var edit: ItemEdit
    /// The list to move to, named by its name (`"list"`); nudged resolves it to an ID.
    public var list: String?
    /// New advance warnings as the client wrote them (`["PT1H"]`; `[]` or `null` removes them). nudged reads them
    /// into `edit.warnings` itself, so that one it cannot read is refused as `invalid_warning`, as in a new item;
    /// until then `edit.warnings` is nil.
    public var warnings: [String]?
    /// A new length to repeat after completion as the client wrote it (`"P2W"`), read by nudged as `warnings` are
    /// (one it cannot read is refused as `invalid_repeat`); until then `edit.repeatAfter` is nil.
    public var repeatAfter: String?
    /// A new nag as the client wrote it (`every=PT10M;times=5`), read by nudged as `warnings` are (one it cannot read
    /// is refused as `invalid_nag`); until then `edit.nag` is nil. `null` sets `edit.clearsNag`.
    public var nag: String?

    public init(_ edit: ItemEdit, list: String? = nil) {
        self.edit = edit
        self.edit.warnings = nil
        self.edit.repeatAfter = nil
        self.edit.nag = nil
        self.list = list
        warnings = edit.warnings?.map(DurationText.iso8601)
        repeatAfter = edit.repeatAfter.map(DurationText.iso8601)
        nag = edit.clearsNag ? nil : edit.nag?.description
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case text, checked, dueDate, dueDay, shouldRemind, listID, list, priority, catchUp, warnings, repeatAfter, nag
        case repeatRule = "repeat"
    }

    public init(from decoder: any Decoder) throws {
        // The same refusal of unknown fields, and the same message, as the generated types.
        try decoder.ensureNoAdditionalProperties(knownKeys: Set(CodingKeys.allCases.map(\.rawValue)))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        /// Whether the field is there and null.
        func null(_ key: CodingKeys) throws -> Bool {
            container.contains(key) ? try container.decodeNil(forKey: key) : false
        }
        let clearsCatchUp = try null(.catchUp)
        /// A field that may be left out but not null: `decode` refuses a null, where `decodeIfPresent` would take it
        /// as left out.
        func field<T: Decodable>(_ key: CodingKeys, _ type: T.Type = T.self) throws -> T? {
            container.contains(key) ? try container.decode(T.self, forKey: key) : nil
        }
        let (dateIsNull, dayIsNull) = (try null(.dueDate), try null(.dueDay))
        let (ruleIsNull, lengthIsNull) = (try null(.repeatRule), try null(.repeatAfter))
        let repeatRule = ruleIsNull ? nil : try field(.repeatRule, String.self)
        repeatAfter = lengthIsNull ? nil : try field(.repeatAfter)
        let dueDate = dateIsNull ? nil : try field(.dueDate, Instant.self)?.date
        let dueDay = dayIsNull ? nil : try field(.dueDay, CalendarDay.self)
        edit = ItemEdit(
            text: try field(.text),
            checked: try field(.checked),
            dueDate: dueDate,
            dueDay: dueDay,
            // `"dueDate": null, "dueDay": "2027-01-15"` moves the due date to a day.
            clearsDueDate: (dateIsNull || dayIsNull) && dueDate == nil && dueDay == nil,
            shouldRemind: try field(.shouldRemind),
            listID: try field(.listID),
            repeatRule: repeatRule,
            // `"repeat": null, "repeatAfter": "P2W"` switches from one way to repeat to the other.
            clearsRepeat: (ruleIsNull || lengthIsNull) && repeatRule == nil && repeatAfter == nil,
            priority: try field(.priority),
            catchUp: clearsCatchUp ? nil : try field(.catchUp),
            clearsCatchUp: clearsCatchUp,
            clearsNag: try null(.nag)
        )
        nag = edit.clearsNag ? nil : try field(.nag)
        list = try field(.list)
        let clearsWarnings = try null(.warnings)
        warnings = clearsWarnings ? [] : try field(.warnings)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(edit.text, forKey: .text)
        try container.encodeIfPresent(edit.checked, forKey: .checked)
        if edit.clearsDueDate {
            try container.encodeNil(forKey: .dueDate)
        } else {
            try container.encodeIfPresent(edit.dueDate.map(Instant.init), forKey: .dueDate)
            try container.encodeIfPresent(edit.dueDay, forKey: .dueDay)
        }
        try container.encodeIfPresent(edit.shouldRemind, forKey: .shouldRemind)
        if edit.clearsRepeat {
            try container.encodeNil(forKey: .repeatRule)
        } else {
            try container.encodeIfPresent(edit.repeatRule, forKey: .repeatRule)
            try container.encodeIfPresent(repeatAfter, forKey: .repeatAfter)
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
        if edit.clearsNag {
            try container.encodeNil(forKey: .nag)
        } else {
            try container.encodeIfPresent(nag, forKey: .nag)
        }
    }
}
