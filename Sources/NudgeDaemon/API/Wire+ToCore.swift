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
    /// The item to add, to the list `listID` (which the caller resolves from `listID` or `list`, knowing the lists).
    /// It reminds by default when it has a due date or a repeat rule.
    func item(listID: Int) throws -> NewItem {
        NewItem(
            text: text,
            listID: listID,
            dueDate: dueDate?.date,
            shouldRemind: shouldRemind ?? (dueDate != nil || _repeat != nil),
            repeatRule: _repeat,
            priority: priority.map(Priority.init) ?? .normal,
            catchUp: try catchUp.map { text throws(ModelError) in try CatchUp(validating: text) },
            warnings: try warnings.map(Warnings.parse) ?? []
        )
    }
}

/// A request body as nudged's routes read it: JSON, with Foundation's `JSONDecoder` (the generated server's converter
/// uses one, configured only for dates, which `Instant` decodes itself), into each of the document's request schemas,
/// and on to what the routes make of them. Any bytes give values or errors, never a crash. For the request-body fuzz
/// target (Tests/Fuzz/RequestBody), which reaches it from outside the module, so that it builds without `@testable`
/// in every configuration (the generated types are internal: see openapi-generator-config.yaml).
package func readAsEveryRequestBody(_ body: Data) {
    let decoder = JSONDecoder()
    if let item = try? decoder.decode(Components.Schemas.NewItem.self, from: body) {
        _ = try? item.item(listID: 1)
    }
    if let patch = try? decoder.decode(ItemPatch.self, from: body) {
        _ = patch.edit
        _ = try? patch.warnings.map(Warnings.parse)
    }
    if let list = try? decoder.decode(Components.Schemas.NewList.self, from: body) {
        _ = try? IconName(requested: list.iconName)
    }
    if let patch = try? decoder.decode(Components.Schemas.ListPatch.self, from: body) {
        _ = try? IconName(requested: patch.iconName)
    }
}
