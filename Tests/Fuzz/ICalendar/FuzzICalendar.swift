import Foundation
import FuzzSupport
import NudgeCalendar
import NudgeCore

/// iCalendar files (`nudge import`, `POST /v1/import`): any bytes give tasks or an error naming a line, never a crash,
/// and never take long. What an import makes of them exports to a file that reads back without error, to the same
/// tasks: an export is always importable.
func fuzzICalendar(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    guard let (tasks, _) = try? CalendarInterchange.tasks(in: text, timeZone: zone, zones: zoneRules) else { return 0 }
    var book = ReminderBook(library: ChecklistLibrary(), clock: ManualWallClock(now), timeZone: zone, zones: zoneRules)
    guard (try? book.importTasks(tasks, into: 1)) != nil else { return 0 }
    let exported = book.calendarDocument()
    do {
        let (again, _) = try CalendarInterchange.tasks(in: exported, timeZone: zone, zones: zoneRules)
        let (results, _) = try book.importTasks(again, into: 1)
        guard results.allSatisfy({ $0.outcome == .unchanged }) else {
            fatalError("an export imported into its own store changed items: \(results)\n\(exported)")
        }
    } catch {
        fatalError("nudge's own export does not read back: \(error)\n\(exported)")
    }
    return 0
}

/// A zone with DST, near a change.
private let zone = TimeZone(identifier: "Europe/Berlin")!
private let now = Date(timeIntervalSince1970: 1_793_400_000)
/// The machine's zone database, read once for every input.
private let zoneRules = ZoneRulesStore()

@main enum Main {
    static func main() { Fuzz.main("fuzz-icalendar", fuzzICalendar) }
}
