import Foundation
import NudgeCore

/// An array of stored values for Foundation's coders, each element boxed only as it is coded: a million items are
/// not copied into boxes first.
struct StoredArray<Element: StoredValue>: Codable, Sendable {
    var elements: [Element]

    init(elements: [Element]) { self.elements = elements }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        elements = []
        elements.reserveCapacity(ChecklistLibrary.roomToGrow(forCount: container.count ?? 0))
        while !container.isAtEnd { elements.append(Element(unboxing: try container.decode(Element.Box.self))) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in elements { try container.encode(element.boxed) }
    }
}
