import Foundation
import NudgeTestSupport
import Testing

@testable import NudgeCalendar

/// The machine's zone database, which systemd reads too.
private let zoneRules = ZoneRulesStore()

/// `SystemdTimestamp` against `systemd-analyze timestamp` on this machine (systemd 252): thousands of generated
/// absolute timestamps in five zones, aimed at DST gaps and overlaps, month ends, two-digit years, fractions and
/// zone words; agreement on rejection and on the instant, to the microsecond. Forms whose reading depends on the
/// wall clock (a time without a date, `today`, `+5min`) are checked on a fixed now below instead.
@Suite("SystemdTimestamp")
struct SystemdTimestampTests {
    static let zones = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"]
    static let perZone = 1_200

    /// Days of DST transitions (2026 and 2027) per zone, where wall times are missing or repeated.
    static let transitionDays: [String: [(Int, Int, Int)]] = [
        "Europe/Berlin": [(2026, 3, 29), (2026, 10, 25), (2027, 3, 28), (2027, 10, 31)],
        "America/New_York": [(2026, 3, 8), (2026, 11, 1), (2027, 3, 14), (2027, 11, 7)],
        "Australia/Lord_Howe": [(2026, 4, 5), (2026, 10, 4), (2027, 4, 4), (2027, 10, 3)],
    ]

    @Test("agrees with systemd-analyze timestamp on rejection and instant")
    func agreesWithSystemdAnalyze() throws {
        let systemdAnalyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: systemdAnalyze) else {
            Issue.record("systemd-analyze was not found: install systemd (scripts/install-deps --tests)")
            return
        }
        var compared = 0
        var rejected = 0
        var disagreements: [String] = []
        for (zoneIndex, zone) in Self.zones.enumerated() {
            var generator = TimestampGenerator(
                seed: 0x7157_A3B0 &+ UInt64(zoneIndex),
                zone: zone,
                transitionDays: Self.transitionDays[zone] ?? []
            )
            let cases = (0..<Self.perZone).map { _ in generator.timestamp() }
            let localRules = zoneRules.rules(named: zone)!
            for (systemdZone, batch) in Self.invocations(cases) {
                let theirs = try Self.systemdInstants(
                    batch.map(\.systemdText),
                    zone: systemdZone,
                    executable: systemdAnalyze
                )
                for timestamp in batch {
                    let ours = try? SystemdTimestamp.microseconds(
                        timestamp.text,
                        now: 0,
                        localRules: localRules,
                        zones: zoneRules
                    )
                    let systemd = theirs[timestamp.systemdText]
                    compared += 1
                    if systemd == nil { rejected += 1 }
                    if ours != systemd {
                        disagreements.append(
                            "TZ=\(zone) \"\(timestamp.text)\": nudge \(ours.map(String.init) ?? "rejects"), "
                                + "systemd (TZ=\(systemdZone) \"\(timestamp.systemdText)\") "
                                + "\(systemd.map(String.init) ?? "rejects")"
                        )
                    }
                }
            }
        }
        print(
            "timestamp oracle: \(compared) timestamps in \(Self.zones.count) zones, \(rejected) rejected by systemd, "
                + "\(disagreements.count) disagreements"
        )
        #expect(compared >= 5_000)
        #expect(rejected > 100 && rejected < compared / 2, "the generator should mix valid and invalid timestamps")
        #expect(disagreements.count == 0, "\(disagreements.prefix(20).joined(separator: "\n"))")
    }

    /// The systemd-analyze runs that check `cases`: by zone, 200 timestamps at a time, but a timestamp on a DST
    /// transition day alone. glibc's `mktime` starts from the offset of its previous result, which decides the
    /// reading of a wall time that is missing or repeated; a run of its own is what a person typing it gets.
    /// systemd 252 cannot read a zone name from the database here (it forks for it, and the child fails), so
    /// "T Europe/Berlin" is checked against T read with TZ=Europe/Berlin, which is what it means.
    static func invocations(_ cases: [GeneratedTimestamp]) -> [(zone: String, batch: [GeneratedTimestamp])] {
        var shared: [String: [GeneratedTimestamp]] = [:]
        var runs: [(zone: String, batch: [GeneratedTimestamp])] = []
        for timestamp in cases {
            if timestamp.onTransitionDay {
                runs.append((timestamp.systemdZone, [timestamp]))
            } else {
                shared[timestamp.systemdZone, default: []].append(timestamp)
            }
        }
        for (zone, timestamps) in shared.sorted(by: { $0.key < $1.key }) {
            for start in stride(from: 0, to: timestamps.count, by: 200) {
                runs.append((zone, Array(timestamps[start..<min(start + 200, timestamps.count)])))
            }
        }
        return runs
    }

    /// The instants (microseconds) systemd-analyze reads, by original text; a text it rejects is missing.
    static func systemdInstants(_ texts: [String], zone: String, executable: String) throws -> [String: Int64] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("nudge-timestamp-\(UUID()).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["timestamp", "--"] + texts
        process.environment = ["TZ": zone, "LC_ALL": "C", "SYSTEMD_COLORS": "0", "PATH": "/usr/bin:/bin"]
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        // Each reading is a block: "  Original form: TEXT" (or "Normalized form:" first when TEXT is already
        // normal), ..., "   UNIX seconds: @SECONDS[.FFFFFF]".
        var instants: [String: Int64] = [:]
        var original: String?
        for line in try String(contentsOf: output, encoding: .utf8).split(
            separator: "\n",
            omittingEmptySubsequences: false
        ) {
            if let range = line.range(of: "Original form: ") {
                original = String(line[range.upperBound...])
            } else if let range = line.range(of: "UNIX seconds: @"), let text = original {
                let parts = line[range.upperBound...].split(separator: ".")
                let seconds = Int64(parts[0])!
                let fraction = parts.count > 1 ? Int64(parts[1])! : 0
                instants[text] = seconds * 1_000_000 + fraction
                original = nil
            }
        }
        return instants
    }

    // MARK: - On a fixed now

    /// Fri 2026-11-27 17:30:15.5 UTC, 18:30:15.5 in Berlin.
    static let now = Date(timeIntervalSince1970: 1_795_800_615.5)
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    static func read(_ text: String, zone: TimeZone = berlin) throws -> Double {
        try SystemdTimestamp.parse(text, now: now, localZone: zone, zones: zoneRules).timeIntervalSince1970
    }

    @Test(
        "the forms relative to now, as systemd.time(7) lists them",
        arguments: [
            ("now", 1_795_800_615.5),
            ("today", 1_795_734_000),  // 2026-11-27 00:00 CET
            ("yesterday", 1_795_647_600),
            ("tomorrow", 1_795_820_400),
            ("today UTC", 1_795_737_600),
            ("tomorrow Pacific/Auckland", 1_795_863_600),  // already the 28th there: 2026-11-29 00:00 NZDT (+13)
            ("11:12", 1_795_774_320),
            ("11:12:13.25", 1_795_774_333.25),
            ("Fri 11:12", 1_795_774_320),
            ("+3h30min", 1_795_813_215.5),
            ("-5s", 1_795_800_610.5),
            ("11min ago", 1_795_799_955.5),
            ("2 weeks left", 1_797_010_215.5),
            ("+1.5h", 1_795_806_015.5),
            ("+ 300ms20s", 1_795_800_635.8),
            ("Nov 27 04:59:59.5", 1_795_751_999.5),
            ("@1395716396", 1_395_716_396),
            ("@1395716396.654563", 1_395_716_396.654563),
            ("@1.5h", 5_400),
        ]
    )
    func relativeToNow(text: String, expected: Double) throws {
        #expect(abs(try Self.read(text) - expected) < 0.000_000_5)
    }

    @Test(
        "dates and times with zones, fractions and RFC 3339's forms",
        arguments: [
            ("2026-03-01 04:59:59.250000 UTC", 1_772_341_199.25),
            ("2026-03-01 04:59:59.25", 1_772_337_599.25),
            ("Sun 2026-03-01 04:59:59.1234565", 1_772_337_599.123_457),
            ("2026-03-01 04:59:59.9999996", 1_772_337_600),
            ("sunday  26-03-01", 1_772_319_600),
            ("2026-3-1 4:5:6", 1_772_334_306),
            ("2026-02-30", 1_772_406_000),  // rolls over to 2 March, as mktime does
            ("2026-03-01 04:59:60", 1_772_337_600),
            ("2026-03-01 12:00 CEST", 1_772_359_200),  // daylight time forced in winter: UTC+2
            ("2026-03-01 12:00 cet", 1_772_362_800),
            ("2026-03-01 04:59 America/New_York", 1_772_359_140),
            ("2026-03-01T04:59:59Z", 1_772_341_199),
            ("2026-03-01T04:59:59.5+01:00", 1_772_337_599.5),
            ("2026-03-01 04:59:59 -0500", 1_772_359_199),
            ("2026-03-01T04:59", 1_772_337_540),
            ("2026-03-29 02:30", 1_774_747_800),  // in Berlin's spring gap: 03:30 CEST, as mktime does
            ("9999-12-30 23:59:59 UTC", 253_402_214_399),
            ("1970-01-01 00:00 UTC", 0),
        ]
    )
    func absolute(text: String, expected: Double) throws {
        #expect(abs(try Self.read(text) - expected) < 0.000_000_5)
    }

    @Test("what systemd refuses is refused, saying what is wrong")
    func refusals() throws {
        func problem(_ text: String) -> SystemdTimestampError.Problem? {
            do {
                _ = try SystemdTimestamp.parse(text, now: Self.now, localZone: Self.berlin, zones: zoneRules)
                return nil
            } catch {
                return error.problem
            }
        }
        #expect(problem("Mon 2026-03-01") == .weekdayMismatch(given: "Monday", actual: "Sunday"))
        #expect(problem("1969-12-31 23:59:59 UTC") == .outOfRange)
        #expect(problem("69-03-01") == .outOfRange)
        #expect(problem("9999-12-31 UTC") == .outOfRange)
        #expect(problem("@-5") == .notUnderstood)
        // Spans past Int64's microseconds, in the whole part or by the fraction's digits: refused, not a crash.
        for text in ["@9223372036854775808", "@9223372036854.9", "+2562047788.9h", "@99999999999999999999999y"] {
            #expect(problem(text) == .outOfRange, "\(text)")
        }
        for text in [
            "", "bogus", "2026-03-01 04", "2026-03-01 04:59.5", "2026-03-01 24:00", "2026-13-01", "now UTC",
            "+5min UTC", "2026-03-01 04:59:59.", "3.h", "5x", "12.34.56", "2026-03-01 12:00 Mars/Olympus",
        ] {
            #expect(problem(text) == .notUnderstood, "\"\(text)\"")
        }
        #expect(problem(String(repeating: "1", count: 300)) == .tooLong)
        let error = SystemdTimestampError(
            text: "Mon 2026-03-01",
            problem: .weekdayMismatch(given: "Monday", actual: "Sunday")
        )
        #expect(
            error.description
                == "\"Mon 2026-03-01\" says Monday, but that date is a Sunday; correct or leave out the weekday"
        )
    }
}

/// One generated timestamp: the text nudge reads in its zone, and the text and zone systemd-analyze is given.
struct GeneratedTimestamp {
    let text: String
    let systemdText: String
    let systemdZone: String
    var onTransitionDay = false
}

/// Absolute timestamps: an optional weekday (right, wrong, in every spelling), a date (four- or two-digit year,
/// padded or not, days past the month's end, months 0 and 13), an optional time (hours around DST transitions,
/// seconds 60 and 61, fractions of 1 to 8 digits, hours 24), and an optional zone word (UTC in any case, the
/// local abbreviations, a database zone, a word that is none).
struct TimestampGenerator {
    var random: SplitMix64
    let zone: String
    let transitionDays: [(Int, Int, Int)]
    let abbreviations: [String]

    init(seed: UInt64, zone: String, transitionDays: [(Int, Int, Int)]) {
        random = SplitMix64(seed: seed)
        self.zone = zone
        self.transitionDays = transitionDays
        let names = zoneRules.rules(named: zone)!.localNames
        // Numeric abbreviations ("+1030") read as offsets, a different path; systemd 252 reads neither.
        abbreviations = Array(Set([names.standard, names.daylight])).filter { $0.first?.isLetter == true }.sorted()
    }

    mutating func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
    mutating func number(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

    mutating func timestamp() -> GeneratedTimestamp {
        let onTransitionDay = !transitionDays.isEmpty && chance(40)
        var (year, month, day) =
            onTransitionDay ? pick(transitionDays) : (number(1971...2099), number(1...12), number(1...28))
        if chance(10) { day = pick([29, 30, 31, 32, 0]) }
        if chance(3) { month = pick([0, 13]) }
        if chance(3) { year = pick([1969, 1970, 9999]) }
        let pad = chance(80)
        func two(_ value: Int) -> String { pad && value < 10 ? "0\(value)" : String(value) }
        var yearText = String(year)
        if chance(15) {
            let short = number(0...99)
            year = short >= 69 ? 1900 + short : 2000 + short
            yearText = short < 10 ? "0\(short)" : String(short)
        }
        var text = "\(yearText)-\(two(month))-\(two(day))"

        if chance(80) {
            let hour = chance(50) ? number(0...4) : chance(3) ? 24 : number(0...23)
            text += pick([" ", " ", " ", "  "]) + "\(two(hour)):\(two(pick([0, 0, 15, 30, 59, number(0...59)])))"
            if chance(60) {
                text += ":" + two(chance(5) ? pick([60, 61]) : number(0...59))
                if chance(40) {
                    text += "." + (0..<number(1...8)).map { _ in String(number(0...9)) }.joined()
                }
            }
        }

        if chance(25) {
            let days = CivilCalendar.daysSinceEpoch(year: Int64(year), month: Int64(month), day: Int64(day))
            let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
            let name = weekdays[chance(75) ? CivilCalendar.weekday(daysSinceEpoch: days) : number(0...6)]
            let spelled = chance(50) ? String(name.prefix(3)) : name
            text = pick([spelled, spelled.lowercased(), spelled.uppercased()]) + " " + text
        }

        var systemdText = text
        var systemdZone = zone
        switch number(0...9) {
        case 0, 1:
            text += " " + pick(["UTC", "utc", "Utc"])
            systemdText = text
        case 2...3 where !abbreviations.isEmpty:
            var word = pick(abbreviations)
            // An abbreviation that is also a file of the database ("CET", "EST") is read as that zone; systemd 252
            // cannot read zone names here, so those are given in lower case, which only the abbreviation matches.
            if zoneRules.hasRules(named: word) || chance(30) { word = word.lowercased() }
            text += " " + word
            systemdText = text
        case 4:
            systemdZone = pick(["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Tokyo"])
            text += " " + systemdZone
        default:
            break
        }
        return GeneratedTimestamp(
            text: text,
            systemdText: systemdText,
            systemdZone: systemdZone,
            onTransitionDay: onTransitionDay
        )
    }
}
