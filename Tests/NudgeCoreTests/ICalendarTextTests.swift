import Foundation
import Testing

@testable import NudgeCalendar
@testable import NudgeCore

/// The iCalendar grammar, the RRULE mapping, and what an import does to a book. The real parsers (Python's
/// icalendar, calcurse, systemd-analyze) check the same in `CalendarFileTests`.
@Suite struct ICalendarTextTests {
    @Test func longLinesFoldAt75OctetsBetweenCharactersAndUnfoldToTheSameText() throws {
        let text = String(repeating: "Zähne putzen, ☕ trinken; 東京\\ ", count: 8) + "\nzweite Zeile"
        let line = "SUMMARY:" + ICalendarText.escaped(text)
        let folded = ICalendarText.folded(line)
        let physical = folded.components(separatedBy: "\r\n").dropLast()
        #expect(physical.count > 4)
        #expect(physical.allSatisfy { $0.utf8.count <= 75 }, "\(physical.map(\.utf8.count))")
        let document = "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\n" + folded + "END:VTODO\r\nEND:VCALENDAR\r\n"
        let todo = try #require(ICalendarText.components(of: document).first?.components.first)
        #expect(todo.property("summary")?.text == text)
    }

    @Test func parametersMayBeQuotedAndLinesMayEndInLFAlone() throws {
        let document =
            "BEGIN:VCALENDAR\nBEGIN:VTODO\nDUE;X-NOTE=\"a;b:c\";TZID=America/New_York:20261201T090000\n"
            + "ATTENDEE;MEMBER=\"mailto:a@x\",\"mailto:b@x\";CN=Ann:mailto:ann@x\nEND:VTODO\nEND:VCALENDAR\n"
        let todo = try #require(ICalendarText.components(of: document).first?.components.first)
        #expect(todo.property("DUE")?.parameters == ["X-NOTE": "a;b:c", "TZID": "America/New_York"])
        #expect(todo.property("DUE")?.value == "20261201T090000" && todo.property("DUE")?.line == 3)
        #expect(todo.property("ATTENDEE")?.parameters["CN"] == "Ann")
        #expect(todo.property("ATTENDEE")?.value == "mailto:ann@x")
    }

    @Test(arguments: [
        ("BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nEND:VEVENT\r\n", "line 3: END:VEVENT closes BEGIN:VTODO of line 2"),
        ("BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nSUMMARY:x\r\n", "line 2: BEGIN:VTODO is never closed"),
        ("SUMMARY:x\r\n", "line 1: SUMMARY is outside any component"),
        ("BEGIN:VCALENDAR\r\n\r\nSUMMARY x\r\nEND:VCALENDAR\r\n", "line 3: \"SUMMARY x\" has no \":\""),
        (" folded\r\n", "line 1: the file starts with a continuation line"),
        ("BEGIN:VCALENDAR\r\nDUE;TZID=\"Europe/Berlin:2026\r\nEND:VCALENDAR\r\n", "line 2: the quoted value of TZID"),
    ])
    func aDocumentOutOfShapeIsRefusedNamingTheLine(document: String, expected: String) {
        #expect(throws: ModelError.self) { try ICalendarText.components(of: document) }
        do {
            _ = try ICalendarText.components(of: document)
        } catch {
            #expect(error.code == .calendarNotUnderstood)
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    @Test func componentsNestNoDeeperThanTheLimit() throws {
        func nested(_ depth: Int) -> String {
            (Array(repeating: "BEGIN:X", count: depth) + Array(repeating: "END:X", count: depth)).joined(
                separator: "\n"
            )
        }
        #expect(try ICalendarText.components(of: nested(ICalendarText.maximumDepth)).count == 1)
        do {
            _ = try ICalendarText.components(of: nested(ICalendarText.maximumDepth + 1))
            Issue.record("a document nested past the limit was read")
        } catch {
            #expect(error.description.contains("line 9: components nest more than 8 deep"), "\(error)")
        }
    }
}
