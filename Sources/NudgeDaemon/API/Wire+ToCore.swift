import Foundation
import NudgeAPI
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
    /// The item's own catch-up rule, if it names one.
    var itemCatchUp: CatchUp? {
        get throws(ModelError) { try catchUp.map { text throws(ModelError) in try CatchUp(validating: text) } }
    }

    /// The due date, and whether to remind: by default, when there is a due date or a repeat rule.
    var reminder: (dueDate: Date?, shouldRemind: Bool) {
        (dueDate?.date, shouldRemind ?? (dueDate != nil || _repeat != nil))
    }
}
