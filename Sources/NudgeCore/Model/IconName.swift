/// The icon a checklist shows; the seed app's fixed set. Unknown names are rejected, listing the valid ones.
public enum IconName: String, Codable, Sendable, CaseIterable {
    case noIcon = "No Icon"
    case appointments = "Appointments"
    case birthdays = "Birthdays"
    case chores = "Chores"
    case drinks = "Drinks"
    case folder = "Folder"
    case groceries = "Groceries"
    case inbox = "Inbox"
    case photos = "Photos"
    case trips = "Trips"

    /// Reads an icon name as a person types it: case-insensitive, so `groceries` and `no icon` work.
    public init(validating name: String) throws(ModelError) {
        let wanted = name.trimmingCharacters(in: .whitespaces)
        guard let icon = Self.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(wanted) == .orderedSame })
        else { throw .unknownIcon(name) }
        self = icon
    }
}
