import Foundation

/// The iCalendar grammar (RFC 5545 §3.1), and nothing of what a component means: unfolding and splitting content
/// lines into components on the way in, escaping and folding on the way out.
public enum ICalendarText {
    /// How deep components may nest: a VCALENDAR holds a VTODO, which holds a VALARM; a little more for what other
    /// programs write, and no more, so a hostile file cannot make the reader recurse without end.
    public static let maximumDepth = 8

    /// The components RFC 5545 and its extensions (RFC 7953, RFC 9073) define.
    static let knownComponents: Set<String> = [
        "VCALENDAR", "VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VTIMEZONE", "STANDARD", "DAYLIGHT", "VALARM",
        "VAVAILABILITY", "AVAILABLE", "VLOCATION", "VRESOURCE", "PARTICIPANT",
    ]

    /// Reads the components of a document (usually one VCALENDAR). Lines may end in CRLF (as the RFC says) or LF
    /// (as calcurse writes), and any other carriage return is dropped; a line starting with a space or a tab continues
    /// the one before. Blank lines and a byte-order mark before the first are ignored. Anything else out of shape is
    /// an error naming its line, with what it quotes shown as `quoted` shows it.
    public static func components(of text: String) throws(ModelError) -> [ICalendarComponent] {
        var finished: [ICalendarComponent] = []
        var open: [ICalendarComponent] = []
        for (line, content) in try contentLines(of: text) {
            let property = try property(content, line: line)
            switch property.name {
            case "BEGIN":
                let name = property.value.uppercased()
                guard isName(name) else {
                    throw error(line, "BEGIN:\(visible(property.value)) does not name a component")
                }
                guard open.count < maximumDepth else {
                    throw error(line, "components nest more than \(maximumDepth) deep")
                }
                open.append(ICalendarComponent(name: name, line: line))
            case "END":
                guard var current = open.popLast() else {
                    throw error(line, "END:\(visible(property.value)) has no BEGIN before it")
                }
                let name = property.value.uppercased()
                if current.name != name {
                    // A misspelt END (recurring-ical-events' test files close every VTODO with END:VTOOD, and
                    // icalendar reads them) closes what is open; one naming another component is a file out of shape.
                    guard isName(name), !knownComponents.contains(name), !name.hasPrefix("X-"),
                        !open.contains(where: { $0.name == name })
                    else {
                        throw error(
                            line,
                            "END:\(visible(property.value)) closes BEGIN:\(current.name) of line \(current.line)"
                        )
                    }
                    current.notes.append(
                        "line \(line): END:\(visible(property.value)), no component's name, read as END:\(current.name)"
                    )
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
    /// UTF-8 sequence), each ending in CRLF (or `lineEnd`, the ending of a file it goes into).
    public static func folded(_ line: String, lineEnd: String = "\r\n") -> String {
        var result = ""
        var width = 0
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            if width + size > 75 {
                result += lineEnd + " "
                width = 1
            }
            result.unicodeScalars.append(scalar)
            width += size
        }
        return result + lineEnd
    }

    /// Part of a file as an error message shows it: its first 40 characters, with what a reader of the file could
    /// not see escaped (control characters; a byte-order mark or a zero-width space shows as `\u{FEFF}`).
    public static func visible(_ text: some StringProtocol) -> String {
        String(text.prefix(40)).escapingControlCharacters(invisible: true)
    }

    /// `visible(text)` between quotes, with quotes and backslashes in it escaped.
    public static func quoted(_ text: some StringProtocol) -> String {
        "\"" + String(text.prefix(40)).escapingControlCharacters(quoting: true, invisible: true) + "\""
    }

    // MARK: Private

    /// The logical lines of a document, unfolded, each with the number of the physical line it starts on.
    private static func contentLines(of text: String) throws(ModelError) -> [(Int, Substring)] {
        var lines: [(Int, Substring)] = []
        var number = 0
        // Carriage returns go: "\r\n" is one Character to Swift, which splitting on "\n" would not see, and a stray
        // one inside a value (TEXT cannot carry it) would not survive an export.
        // A byte-order mark is not part of the text (Windows programs write one; RFC 5545 says nothing of it).
        // Both are taken out of the UTF-8 bytes (a carriage return is one byte, never part of another character's),
        // four times faster than of the Unicode scalars: a folder of ten thousand tasks is read whole when linked.
        let bytes = text.utf8.trimmingPrefix([0xEF, 0xBB, 0xBF])
        let text = String(decoding: bytes.filter { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
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
            throw error(line, "\(quoted(content)) has no \":\" between a property name and its value")
        }
        let name = content[..<nameEnd].uppercased()
        var readPast: [String] = []
        if !isName(name) {
            guard isReadableName(name) else {
                throw error(line, "\(quoted(content[..<nameEnd])) is not a property name")
            }
            readPast.append(
                "\(quoted(content[..<nameEnd])) is not a property name RFC 5545 allows (letters, digits and dashes): "
                    + "left out"
            )
        }
        var parameters: [String: String] = [:]
        var rest = content[nameEnd...]
        while rest.first == ";" {
            rest = rest.dropFirst()
            // Up to the "=" of its value; a parameter that has none (Evolution's `COMPLETED;America/New_York:…`) is
            // left out.
            let equals = rest.firstIndex { $0 == "=" || $0 == ";" || $0 == ":" } ?? rest.endIndex
            guard equals < rest.endIndex, rest[equals] == "=" else {
                readPast.append("a parameter of \(name), \(quoted(rest[..<equals])), has no \"=\": left out")
                rest = rest[equals...]
                continue
            }
            let parameterName = rest[..<equals].uppercased()
            guard isName(parameterName) else {
                throw error(line, "\(quoted(rest[..<equals])) is not a parameter name (in \(name))")
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
        return ICalendarProperty(
            name: name,
            parameters: parameters,
            value: String(rest.dropFirst()),
            line: line,
            readPast: readPast
        )
    }

    /// Names are letters, digits and dashes (RFC 5545 §3.1: iana-token and x-name).
    private static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
    }

    /// A property name the grammar forbids but a program wrote on purpose (Synology's `PERCENT_COMPLETE`): visible
    /// ASCII, and none of the characters that end a name or quote a value. Read as a property nudge does not know.
    private static func isReadableName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 > 32 && $0 < 127 && $0 != 34 && $0 != 44 && $0 != 58 && $0 != 59 }
    }

    static func error(_ line: Int, _ problem: String) -> ModelError {
        .calendarNotUnderstood(line: line, problem)
    }
}
