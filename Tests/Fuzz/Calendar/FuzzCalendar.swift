import Foundation
import FuzzSupport
import NudgeCalendar

/// Calendar expressions (`CalendarSpec`, what `--repeat` and `nudge calendar` read), with their next elapses and the
/// `nudge calendar` report, and systemd timestamps (`SystemdTimestamp`, what `--base-time` reads): any bytes give a
/// result or an error, never a crash, and never take long. The engine alone, on the machine's zone database.
func fuzzCalendar(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    for zone in timeZones {
        _ = try? SystemdTimestamp.parse(text, now: now, localZone: zone, zones: zoneRules)
        guard let spec = try? CalendarSpec(parsing: text, localZone: zone, zones: zoneRules) else { continue }
        var after = now
        for _ in 0..<3 {
            guard let next = spec.next(after: after, in: zone) else { break }
            after = next
        }
        _ = try? CalendarReport.render(
            expression: text,
            localZone: zone,
            zones: zoneRules,
            baseTime: now,
            iterations: 2,
            now: now
        )
    }
    return 0
}

/// A Friday evening near a DST change, and zones with and without transitions.
private let now = Date(timeIntervalSince1970: 1_793_400_000)
private let timeZones = ["UTC", "Europe/Berlin", "America/St_Johns", "Australia/Lord_Howe"].compactMap(
    TimeZone.init(identifier:)
)
/// The machine's zone database, read once for every input.
private let zoneRules = ZoneRulesStore()

@main enum Main {
    static func main() { Fuzz.main("fuzz-calendar", fuzzCalendar) }
}
