import Foundation

/// The iCalendar grammar (RFC 5545 §3.1), and nothing of what a component means: unfolding and splitting content
/// lines into components on the way in, escaping and folding on the way out.
public enum ICalendarText {
    /// How deep components may nest: a VCALENDAR holds a VTODO, which holds a VALARM; a little more for what other
    /// programs write, and no more, so a hostile file cannot make the reader recurse without end.
    public static let maximumDepth = 8

    /// Reads the components of a document (usually one VCALENDAR). Lines may end in CRLF (as the RFC says) or LF
    /// (as calcurse writes), and any other carriage return is dropped; a line starting with a space or a tab continues the one before. Blank lines are
    /// ignored. Anything else out of shape is an error naming its line.
    public static func components(of text: String) throws(ModelError) -> [ICalendarComponent] {
        var finished: [ICalendarComponent] = []
        var open: [ICalendarComponent] = []
        for (line, content) in try contentLines(of: text) {
            let property = try property(content, line: line)
            switch property.name {
            case "BEGIN":
                let name = property.value.uppercased()
                guard isName(name) else { throw error(line, "BEGIN:\(property.value) does not name a component") }
                guard open.count < maximumDepth else {
                    throw error(line, "components nest more than \(maximumDepth) deep")
                }
                open.append(ICalendarComponent(name: name, line: line))
            case "END":
                guard let current = open.popLast() else {
                    throw error(line, "END:\(property.value) has no BEGIN before it")
                }
                guard current.name == property.value.uppercased() else {
                    throw error(line, "END:\(property.value) closes BEGIN:\(current.name) of line \(current.line)")
                }
                if open.isEmpty { finished.append(current) } else { open[open.count - 1].components.append(current) }
            default:
                guard !open.isEmpty else {
                    throw error(line, "\(property.name) is outside any component; a file starts with BEGIN:VCALENDAR")
                }
                open[open.count - 1].properties.append(property)
            }
        }
        if let unclosed = open.last {
            throw error(unclosed.line, "BEGIN:\(unclosed.name) is never closed (no END:\(unclosed.name))")
        }
        return finished
    }

    /// TEXT as a property value: backslash, comma, semicolon and newline escaped.
    public static func escaped(_ text: String) -> String {
        text.replacingCharacters {
            switch $0 {
            case "\\": "\\\\"
            case ",": "\\,"
            case ";": "\\;"
            case "\n", "\r\n": "\\n"
            case "\r": ""
            default: nil
            }
        }
    }

    /// A TEXT value read back: `\n` (or `\N`) is a newline, any other escaped character stands for itself.
    public static func unescaped(_ value: String) -> String {
        guard value.contains("\\") else { return value }
        var result = ""
        var escaping = false
        for character in value {
            if escaping {
                result.append(character == "n" || character == "N" ? "\n" : character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// One content line as the RFC wants it written: folded so no line is longer than 75 octets (never inside a
    /// UTF-8 sequence), each ending in CRLF.
    public static func folded(_ line: String) -> String {
        var result = ""
        var width = 0
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            if width + size > 75 {
                result += "\r\n "
                width = 1
            }
            result.unicodeScalars.append(scalar)
            width += size
        }
        return result + "\r\n"
    }

    // MARK: Private

    /// The logical lines of a document, unfolded, each with the number of the physical line it starts on.
    private static func contentLines(of text: String) throws(ModelError) -> [(Int, Substring)] {
        var lines: [(Int, Substring)] = []
        var number = 0
        // Carriage returns go: "\r\n" is one Character to Swift, which splitting on "\n" would not see, and a stray
        // one inside a value (TEXT cannot carry it) would not survive an export.
        let text = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\r" }))
        for physical in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            if let first = physical.first, first == " " || first == "\t" {
                guard let last = lines.popLast() else {
                    throw error(number, "the file starts with a continuation line (one that begins with a space)")
                }
                lines.append((last.0, last.1 + physical.dropFirst()))
            } else if !physical.isEmpty {
                lines.append((number, physical))
            }
        }
        return lines
    }

    /// `NAME;PARAM=value;PARAM="quoted value":value`.
    private static func property(_ content: Substring, line: Int) throws(ModelError) -> ICalendarProperty {
        guard let nameEnd = content.firstIndex(where: { $0 == ";" || $0 == ":" }) else {
            throw error(line, "\"\(content.prefix(40))\" has no \":\" between a property name and its value")
        }
        let name = content[..<nameEnd].uppercased()
        guard isName(name) else { throw error(line, "\"\(content[..<nameEnd].prefix(40))\" is not a property name") }
        var parameters: [String: String] = [:]
        var rest = content[nameEnd...]
        while rest.first == ";" {
            rest = rest.dropFirst()
            guard let equals = rest.firstIndex(of: "=") else {
                throw error(line, "a parameter of \(name) has no \"=\"")
            }
            let parameterName = rest[..<equals].uppercased()
            guard isName(parameterName) else {
                throw error(line, "\"\(rest[..<equals].prefix(40))\" is not a parameter name (in \(name))")
            }
            rest = rest[rest.index(after: equals)...]
            func nextValue() throws(ModelError) -> Substring {
                guard rest.first == "\"" else {
                    let end = rest.firstIndex { $0 == ";" || $0 == ":" || $0 == "," } ?? rest.endIndex
                    defer { rest = rest[end...] }
                    return rest[..<end]
                }
                rest = rest.dropFirst()
                guard let close = rest.firstIndex(of: "\"") else {
                    throw error(line, "the quoted value of \(parameterName) (in \(name)) is never closed")
                }
                defer { rest = rest[rest.index(after: close)...] }
                return rest[..<close]
            }
            let value = try nextValue()
            // A list of values (`MEMBER="a","b"`): nudge reads only single values, so the first stands.
            while rest.first == "," {
                rest = rest.dropFirst()
                _ = try nextValue()
            }
            if parameters[parameterName] == nil { parameters[parameterName] = String(value) }
        }
        guard rest.first == ":" else { throw error(line, "\(name) has no \":\" before its value") }
        return ICalendarProperty(name: name, parameters: parameters, value: String(rest.dropFirst()), line: line)
    }

    /// Names are letters, digits and dashes (RFC 5545 §3.1: iana-token and x-name).
    private static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
    }

    static func error(_ line: Int, _ problem: String) -> ModelError {
        .calendarNotUnderstood(line: line, problem)
    }
}
