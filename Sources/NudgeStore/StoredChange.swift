import NudgeCore

/// A `ChecklistChange` as a change-log record holds it: a dictionary with one key, the change's name, holding its
/// arguments (`_0` for an unnamed one), the layout Swift's synthesized coding of the enumeration gave the log
/// before the store owned it. Items and lists in it are coded by `StoreSchema`'s tables, as in the snapshot.
struct StoredChange: Codable, Sendable {
    var change: ChecklistChange

    init(_ change: ChecklistChange) { self.change = change }

    private enum Name: String, CodingKey {
        case addList, updateList, removeList, setDefaultList, setDigestTime, markDigestSent, setLink, putItem,
            removeItem
    }

    private enum Argument: String, CodingKey {
        case unnamed = "_0"
        case listID, name, iconName, itemID, digestTime, day, link
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Name.self)
        guard container.allKeys.count == 1, let name = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: container.codingPath,
                    debugDescription: "a change has exactly one key, its kind (\(Self.kinds)); this has "
                        + "\(container.allKeys.count) of those"
                )
            )
        }
        let arguments = try container.nestedContainer(keyedBy: Argument.self, forKey: name)
        func id(_ key: Argument) throws -> Int { try arguments.decode(Int.self, forKey: key) }
        change =
            switch name {
            case .addList: .addList(try arguments.decode(StoredList.self, forKey: .unnamed).record)
            case .updateList:
                .updateList(
                    listID: try id(.listID),
                    name: try arguments.decode(String.self, forKey: .name),
                    iconName: try arguments.decode(IconName.self, forKey: .iconName)
                )
            case .removeList: .removeList(listID: try id(.listID))
            case .setDefaultList: .setDefaultList(listID: try id(.listID))
            case .setDigestTime:
                .setDigestTime(
                    listID: try id(.listID),
                    digestTime: try arguments.decodeIfPresent(Int.self, forKey: .digestTime)
                )
            case .markDigestSent:
                .markDigestSent(listID: try id(.listID), day: try arguments.decode(CalendarDay.self, forKey: .day))
            case .setLink:
                .setLink(
                    listID: try id(.listID),
                    link: try arguments.decodeIfPresent(StoredLink.self, forKey: .link)?.record
                )
            case .putItem:
                .putItem(
                    try arguments.decode(StoredItem.self, forKey: .unnamed).record,
                    listID: try id(.listID)
                )
            case .removeItem: .removeItem(itemID: try id(.itemID))
            }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Name.self)
        switch change {
        case .addList(let list):
            var arguments = container.nestedContainer(keyedBy: Argument.self, forKey: .addList)
            try arguments.encode(StoredList(record: list), forKey: .unnamed)
        case .updateList(let listID, let name, let iconName):
            var arguments = container.nestedContainer(keyedBy: Argument.self, forKey: .updateList)
            try arguments.encode(listID, forKey: .listID)
            try arguments.encode(name, forKey: .name)
            try arguments.encode(iconName, forKey: .iconName)
        case .removeList(let listID):
            var arguments = container.nestedContainer(keyedBy: Argument.self, forKey: .removeList)
            try arguments.encode(listID, forKey: .listID)
        case .setDefaultList(let listID):
            var arguments = container.nestedContainer(keyedBy: Argument.self, forKey: .setDefaultList)
            try arguments.encode(listID, forKey: .listID)
        case .setDigestTime(let listID, let digestTime):
            var arguments = container.nestedContainer(keyedBy: Argument.self, forKey: .setDigestTime)
            try arguments.encode(listID, forKey: .listID)
            try arguments.encodeIfPresent(digestTime, forKey: .digestTime)
        case .markDigestSent(let listID, let day):
            var arguments = container.nestedContainer(keyedBy: Argument.self, forKey: .markDigestSent)
            try arguments.encode(listID, forKey: .listID)
            try arguments.encode(day, forKey: .day)
        case .setLink(let listID, let link):
            var arguments = container.nestedContainer(keyedBy: Argument.self, forKey: .setLink)
            try arguments.encode(listID, forKey: .listID)
            try arguments.encodeIfPresent(link.map(StoredLink.init(record:)), forKey: .link)
        case .putItem(let item, let listID):
            var arguments = container.nestedContainer(keyedBy: Argument.self, forKey: .putItem)
            try arguments.encode(StoredItem(record: item), forKey: .unnamed)
            try arguments.encode(listID, forKey: .listID)
        case .removeItem(let itemID):
            var arguments = container.nestedContainer(keyedBy: Argument.self, forKey: .removeItem)
            try arguments.encode(itemID, forKey: .itemID)
        }
    }

    private static let kinds =
        "addList, updateList, removeList, setDefaultList, setDigestTime, markDigestSent, setLink, "
        + "putItem or removeItem"
}
