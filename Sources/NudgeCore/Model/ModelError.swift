/// Why a change to the checklists was refused. Each case reads as a sentence a person can act on.
public struct ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal this is, for callers that map errors to API status codes.
    public enum Code: String, Sendable, Equatable {
        case unknownIcon = "unknown_icon"
        case unknownList = "unknown_list"
        case unknownItem = "unknown_item"
        case duplicateListName = "duplicate_list_name"
        case duplicateListID = "duplicate_list_id"
        case emptyText = "empty_text"
        case lastList = "last_list"
    }

    public let code: Code
    public let description: String

    public static func unknownIcon(_ name: String) -> ModelError {
        let valid = IconName.allCases.map(\.rawValue).joined(separator: ", ")
        return ModelError(code: .unknownIcon, description: "unknown icon \"\(name)\"; valid icons are: \(valid)")
    }

    public static func unknownList(_ listID: Int) -> ModelError {
        ModelError(code: .unknownList, description: "there is no list with ID \(listID)")
    }

    public static func unknownList(named name: String) -> ModelError {
        ModelError(code: .unknownList, description: "there is no list named \"\(name)\"")
    }

    public static func unknownItem(_ itemID: Int) -> ModelError {
        ModelError(code: .unknownItem, description: "there is no item with ID \(itemID)")
    }

    public static func duplicateListName(_ name: String) -> ModelError {
        ModelError(
            code: .duplicateListName,
            description: "a list named \"\(name)\" already exists; list names are unique, ignoring case"
        )
    }

    public static func duplicateListID(_ listID: Int) -> ModelError {
        ModelError(code: .duplicateListID, description: "a list with ID \(listID) already exists")
    }

    public static func emptyText(_ what: String) -> ModelError {
        ModelError(code: .emptyText, description: "\(what) must not be empty")
    }

    public static func lastList(_ name: String) -> ModelError {
        ModelError(
            code: .lastList,
            description: "\"\(name)\" is the only list and cannot be removed; add another list first"
        )
    }
}
