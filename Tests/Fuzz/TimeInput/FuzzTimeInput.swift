import Foundation
import FuzzSupport
import NudgeCalendar
import NudgeCore

/// People's times (`TimeInput`, what `nudge --due` reads), programs' instants (`InstantFormat`, every date-time in
/// the API) and calendar expressions (`CalendarSpec`, what `--repeat` reads, with their next elapses and the
/// `nudge calendar` report): any bytes give a result or an error, never a crash, and never take long.
func fuzzTimeInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    for zone in timeZones {
        _ = try? TimeInput(now: now, timeZone: zone).parse(text)
        if let spec = try? CalendarSpec(parsing: text, localZone: zone, zones: zoneRules) {
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
    }
    _ = InstantFormat.parse(text)
    return 0
}

/// A Friday evening near a DST change, and zones with and without transitions.
private let now = Date(timeIntervalSince1970: 1_793_400_000)
private let timeZones = ["UTC", "Europe/Berlin", "America/St_Johns", "Australia/Lord_Howe"].compactMap(
    TimeZone.init(identifier:)
)

@main enum Main {
    static func main() { Fuzz.main("fuzz-time-input", fuzzTimeInput) }
}
/// The machine's zone database, read once for every input.
private let zoneRules = ZoneRulesStore()
