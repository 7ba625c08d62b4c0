import Foundation

/// A component (`BEGIN:VTODO` … `END:VTODO`) with its properties and the components inside it.
public struct ICalendarComponent: Sendable, Equatable {
    /// Upper-cased.
    public var name: String
    public var properties: [ICalendarProperty] = []
    public var components: [ICalendarComponent] = []
    /// The line of its `BEGIN`.
    public var line: Int
    /// What the reader made of lines out of shape that it read past (a misspelt `END`), to be said with it.
    public var notes: [String] = []

    public init(name: String, line: Int) {
        self.name = name
        self.line = line
    }

    /// The first property of this name (given in any case).
    public func property(_ name: String) -> ICalendarProperty? {
        let name = name.uppercased()
        return properties.first { $0.name == name }
    }
}
