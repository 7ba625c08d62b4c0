import Foundation
import PropertyBased
import Testing

@testable import NudgeVdir

/// Which files hold a task: the look at each file of a folder before it is parsed.
@Suite struct VdirTaskFileTests {
    /// What `holdsTask` says, said the plain way it was first written: a line (split where Swift's Characters say a
    /// line ends) that is `BEGIN:VTODO` in any case, after any byte-order marks and between blanks.
    static func holdsTaskAsText(_ text: String) -> Bool {
        text.split(whereSeparator: \.isNewline).contains { line in
            line.drop { $0 == "\u{FEFF}" }.trimmingCharacters(in: .whitespaces).uppercased() == "BEGIN:VTODO"
        }
    }

    static let pieces = [
        "BEGIN:VTODO", "begin:vtodo", "BEGIN:VTOD", "O", "BEGIN:VEVENT", " ", "\t", "\u{FEFF}", "\r\n", "\n", "\r",
        "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}", "\u{A0}", "\u{3000}", "\u{301}", "é", "X", "ı",
    ]

    @Test func byBytesItSaysWhatTheTextSays() async {
        await propertyCheck(count: 2_000, input: Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 0...12)) { picks in
            let text = picks.map { Self.pieces[$0] }.joined()
            #expect(VdirCollection.holdsTask(text) == Self.holdsTaskAsText(text), "\(text.debugDescription)")
        }
    }

    @Test func aLineOfBlanksAroundBeginVTODOInAnyCaseHoldsATask() {
        #expect(VdirCollection.holdsTask("BEGIN:VCALENDAR\r\n \tBegin:VTodo \r\nEND:VCALENDAR\r\n"))
        #expect(VdirCollection.holdsTask("\u{FEFF}BEGIN:VTODO\n"))
        #expect(!VdirCollection.holdsTask("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nX-BEGIN:VTODO\r\n"))
        #expect(!VdirCollection.holdsTask("BEGIN:VTODO\u{301}\r\n"), "a mark makes another character")
    }
}
