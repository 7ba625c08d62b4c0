import Foundation
import NudgeAPI
import NudgeAPITypes
import NudgeCore

// Wire → core: what a request asks of the model. A field added to the document's requests is read here.

extension IconName {
    /// An icon a request names, as a person would type it; none named is `nil`.
    init?(requested name: String?) throws(ModelError) {
        guard let name else { return nil }
        try self.init(validating: name)
    }
}

extension Priority {
    init(_ priority: Components.Schemas.Priority) {
        switch priority {
        case .low: self = .low
        case .normal: self = .normal
        case .high: self = .high
        }
    }
}

extension Components.Schemas.NewItem {
    /// The item to add, to the list `listID` (which the caller resolves from `listID` or `list`, knowing the lists).
    /// It reminds by default when it has a due date or repeats.
    func item(listID: Int) throws -> NewItem {
        NewItem(
            text: text,
            listID: listID,
            dueDate: dueDate?.date,
            dueDay: dueDay,
            shouldRemind: shouldRemind ?? (dueDate != nil || dueDay != nil || _repeat != nil || repeatAfter != nil),
            repeatRule: _repeat,
            repeatAfter: try repeatAfter.map(RepeatAfter.parseISO8601),
            priority: priority.map(Priority.init) ?? .normal,
            catchUp: try catchUp.map { text throws(ModelError) in try CatchUp(exactly: text) },
            warnings: try warnings.map(Warnings.parse) ?? [],
            nag: try nag.map { text throws(ModelError) in try Nag(exactly: text) }
        )
    }
}
