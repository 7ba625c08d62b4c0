/// Splits a `text/event-stream` body into events, whatever chunks its bytes arrive in. Follows the WHATWG rules
/// nudged's stream needs: `event:` and `data:` fields (several `data:` lines join with newlines), `:` comments
/// ignored, a blank line ends an event, lines end with LF, CR or CRLF.
struct ServerSentEventParser {
    struct Event: Equatable, Sendable {
        /// The `event:` field; `message` when there is none.
        var name: String
        var data: String
    }

    private var line: [UInt8] = []
    private var name = ""
    private var dataLines: [String] = []
    private var afterCarriageReturn = false

    /// Reads more of the stream and returns the events it completed.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if afterCarriageReturn {
                afterCarriageReturn = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                afterCarriageReturn = byte == UInt8(ascii: "\r")
                if let event = endLine() { events.append(event) }
            default:
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine() -> Event? {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            defer {
                name = ""
                dataLines = []
            }
            guard !dataLines.isEmpty else { return nil }
            return Event(name: name.isEmpty ? "message" : name, data: dataLines.joined(separator: "\n"))
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":") else {
            if text == "data" { dataLines.append("") }
            return nil
        }
        guard colon != text.startIndex else { return nil }  // a comment, such as a keep-alive
        var value = text[text.index(after: colon)...]
        if value.first == " " { value = value.dropFirst() }
        switch text[..<colon] {
        case "event": name = String(value)
        case "data": dataLines.append(String(value))
        default: break  // id, retry: nudge does not reconnect, so it needs neither
        }
        return nil
    }
}
