import Foundation
import NudgeCore

/// The paths of the API, version 1.
public enum APIPath {
    public static let lists = "/v1/lists"
    public static let items = "/v1/items"
    public static let pending = "/v1/pending"
    public static let events = "/v1/events"
    public static func list(_ listID: Int) -> String { "/v1/lists/\(listID)" }
    public static func item(_ itemID: Int) -> String { "/v1/items/\(itemID)" }
    /// POST checks the item off; DELETE unchecks it.
    public static func itemDone(_ itemID: Int) -> String { "/v1/items/\(itemID)/done" }
}

/// `GET /v1/health`.
public struct HealthResource: Codable, Sendable, Equatable {
    public var status: String
    public var pid: Int32
    public var store: String
    public var socket: String
    public var items: Int
    public var pending: Int
    public var nextDue: Date?
    /// Clients streaming `/v1/events` now: a watcher counts from the moment its stream is subscribed, so once it
    /// shows here, it sees every later event.
    public var watchers: Int

    public init(
        status: String,
        pid: Int32,
        store: String,
        socket: String,
        items: Int,
        pending: Int,
        nextDue: Date?,
        watchers: Int
    ) {
        self.status = status
        self.pid = pid
        self.store = store
        self.socket = socket
        self.items = items
        self.pending = pending
        self.nextDue = nextDue
        self.watchers = watchers
    }
}

/// A list as the API shows it.
public struct ListResource: Codable, Sendable, Equatable {
    public var listID: Int
    public var name: String
    public var iconName: String
    public var itemCount: Int
    public var uncheckedCount: Int
    /// "All Done" or "N Remaining".
    public var status: String

    public init(_ list: Checklist) {
        listID = list.listID
        name = list.name
        iconName = list.iconName.rawValue
        itemCount = list.items.count
        uncheckedCount = list.uncheckedCount
        status = list.statusText
    }
}

/// An item as the API shows it, with its list and whether a reminder is pending for it.
public struct ItemResource: Codable, Sendable, Equatable {
    public var itemID: Int
    public var listID: Int
    public var listName: String
    public var text: String
    public var checked: Bool
    public var dueDate: Date?
    public var shouldRemind: Bool
    public var createdAt: Date
    public var updatedAt: Date
    public var lastFiredAt: Date?
    /// The instant of the pending reminder, if one is pending.
    public var pendingDue: Date?

    public init(_ item: ChecklistItem, list: Checklist, pendingDue: Date?) {
        itemID = item.itemID
        listID = list.listID
        listName = list.name
        text = item.text
        checked = item.checked
        dueDate = item.dueDate
        shouldRemind = item.shouldRemind
        createdAt = item.createdAt
        updatedAt = item.updatedAt
        lastFiredAt = item.lastFiredAt
        self.pendingDue = pendingDue
    }
}

/// `POST /v1/lists`.
public struct NewListRequest: Codable, Sendable, Equatable {
    public var name: String
    public var iconName: String?

    public init(name: String, iconName: String? = nil) {
        self.name = name
        self.iconName = iconName
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case name, iconName }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        iconName = try container.decodeIfPresent(String.self, forKey: .iconName)
    }
}

/// `PATCH /v1/lists/{id}`: rename, or change the icon.
public struct ListPatchRequest: Codable, Sendable, Equatable {
    public var name: String?
    public var iconName: String?

    public init(name: String? = nil, iconName: String? = nil) {
        self.name = name
        self.iconName = iconName
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case name, iconName }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        iconName = try container.decodeIfPresent(String.self, forKey: .iconName)
    }
}

/// `POST /v1/items`. The list is named by `listID` or by `list` (its name); neither means the first list.
public struct NewItemRequest: Codable, Sendable, Equatable {
    public var text: String
    public var listID: Int?
    public var list: String?
    public var dueDate: Date?
    public var shouldRemind: Bool?

    public init(text: String, listID: Int? = nil, list: String? = nil, dueDate: Date? = nil, shouldRemind: Bool? = nil)
    {
        self.text = text
        self.listID = listID
        self.list = list
        self.dueDate = dueDate
        self.shouldRemind = shouldRemind
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case text, listID, list, dueDate, shouldRemind }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decode(String.self, forKey: .text)
        listID = try container.decodeIfPresent(Int.self, forKey: .listID)
        list = try container.decodeIfPresent(String.self, forKey: .list)
        dueDate = try container.decodeIfPresent(Date.self, forKey: .dueDate)
        shouldRemind = try container.decodeIfPresent(Bool.self, forKey: .shouldRemind)
    }
}

/// `PATCH /v1/items/{id}`: fields left out stay as they are; `"dueDate": null` removes the due date.
public struct ItemPatchRequest: Codable, Sendable, Equatable {
    public var text: String?
    public var checked: Bool?
    public var dueDate: Date?
    public var clearsDueDate: Bool
    public var shouldRemind: Bool?
    public var listID: Int?
    public var list: String?

    public init(
        text: String? = nil,
        checked: Bool? = nil,
        dueDate: Date? = nil,
        clearsDueDate: Bool = false,
        shouldRemind: Bool? = nil,
        listID: Int? = nil,
        list: String? = nil
    ) {
        self.text = text
        self.checked = checked
        self.dueDate = dueDate
        self.clearsDueDate = clearsDueDate
        self.shouldRemind = shouldRemind
        self.listID = listID
        self.list = list
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case text, checked, dueDate, shouldRemind, listID, list }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decodeIfPresent(String.self, forKey: .text)
        checked = try container.decodeIfPresent(Bool.self, forKey: .checked)
        clearsDueDate = container.contains(.dueDate) ? try container.decodeNil(forKey: .dueDate) : false
        dueDate = clearsDueDate ? nil : try container.decodeIfPresent(Date.self, forKey: .dueDate)
        shouldRemind = try container.decodeIfPresent(Bool.self, forKey: .shouldRemind)
        listID = try container.decodeIfPresent(Int.self, forKey: .listID)
        list = try container.decodeIfPresent(String.self, forKey: .list)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(text, forKey: .text)
        try container.encodeIfPresent(checked, forKey: .checked)
        if clearsDueDate {
            try container.encodeNil(forKey: .dueDate)
        } else {
            try container.encodeIfPresent(dueDate, forKey: .dueDate)
        }
        try container.encodeIfPresent(shouldRemind, forKey: .shouldRemind)
        try container.encodeIfPresent(listID, forKey: .listID)
        try container.encodeIfPresent(list, forKey: .list)
    }
}

/// Every error the API returns: `{"error": {"code": "...", "message": "..."}}`.
public struct APIErrorBody: Codable, Sendable, Equatable, Error {
    public struct Detail: Codable, Sendable, Equatable {
        public var code: String
        public var message: String
    }

    public var error: Detail

    public init(code: String, message: String) {
        error = Detail(code: code, message: message)
    }
}
