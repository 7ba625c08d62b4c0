import Foundation
import FuzzSupport
import NudgeCore

/// People's times (`TimeInput`, what `nudge --due` reads) and programs' instants (`InstantFormat`, every date-time in
/// the API): any bytes give a result or an error, never a crash, and never take long. (Calendar expressions, what
/// `--repeat` reads, are `fuzz-calendar`'s.)
func fuzzTimeInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    for zone in timeZones { _ = try? TimeInput(now: now, timeZone: zone).parse(text) }
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
