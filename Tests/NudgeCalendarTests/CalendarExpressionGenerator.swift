import NudgeTestSupport

/// Generates calendar expressions covering systemd.time(7)'s grammar, mostly valid, some subtly invalid.
struct CalendarExpressionGenerator {
    private var random: SplitMix64
    /// Abbreviations of the local zone (e.g. CET, CEST), which systemd accepts at the end.
    private let localAbbreviations: [String]

    init(seed: UInt64, localAbbreviations: [String]) {
        random = SplitMix64(seed: seed)
        self.localAbbreviations = localAbbreviations
    }

    mutating func expression() -> String {
        switch int(100) {
        case 0..<6: return shorthand() + zoneSuffix(probability: 30)
        case 6..<9: return timestamp()
        case 9..<14: return mutated(composed())
        default: return composed()
        }
    }

    // MARK: - Pieces

    private mutating func int(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }
    private mutating func chance(_ percent: Int) -> Bool { int(100) < percent }
    private mutating func pick<T>(_ items: [T]) -> T { items[int(items.count)] }

    private mutating func randomCase(_ word: String) -> String {
        switch int(4) {
        case 0: return word.lowercased()
        case 1: return word.uppercased()
        case 2:
            return String(
                word.map { chance(50) ? Character($0.uppercased()) : Character($0.lowercased()) }
            )
        default: return word
        }
    }

    private mutating func shorthand() -> String {
        let words = [
            "minutely", "hourly", "daily", "monthly", "weekly", "yearly", "annually", "anually",
            "quarterly",
            "semiannually", "semi-annually", "biannually", "bi-annually", "fortnightly", "hourly ",
            " daily",
        ]
        return randomCase(pick(words))
    }

    private mutating func timestamp() -> String {
        let values = [
            "@0", "@1", "@1767225600", "@1800000000", "@ 1790000000", "@+1790000000", "@-0", "@-1",
            "@7258118399",
            "@7258118400", "@99999999999999999999", "@", "@12x", "@-62135596800", "@4102444800.5",
        ]
        var text = pick(values)
        if chance(20) { text = pick(["Mon ", "Sat,Sun ", "Fri "]) + text }
        return text + zoneSuffix(probability: 20)
    }

    private static let weekdayNames = [
        "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", "Monday", "Tuesday", "Wednesday", "Thursday",
        "Friday",
        "Saturday", "Sunday",
    ]

    private mutating func weekday() -> String {
        if chance(2) { return pick(["Mond", "Thurs", "Tues", "Sonntag", "M"]) }
        return randomCase(pick(Self.weekdayNames))
    }

    private mutating func weekdays() -> String {
        switch int(10) {
        case 0..<3: return weekday()
        case 3..<5:
            let first = int(7)
            let last = chance(90) ? first + int(7 - first) : int(7)
            return randomCase(Self.weekdayNames[first + 7 * int(2)]) + pick(["..", "..", "-"])
                + randomCase(Self.weekdayNames[last + 7 * int(2)])
        case 5..<7: return (0..<(1 + int(3))).map { _ in weekday() }.joined(separator: ",")
        case 7: return weekday() + ".." + weekday() + "," + weekday()
        case 8: return chance(50) ? weekday() + "," : "Mon..Fri"
        default:
            return chance(60)
                ? pick(["Mon..Fri", "Sat,Sun", "Mon-Fri", "Mon..Sun", "Mon,Wed,Fri", "Tue..Thu,Sat"])
                : pick([
                    "Mon..", "Mon...Fri", "Mon-Wed-Fri", "Mon,,Tue", "Mon.Fri", "Mon..Wed..Fri", "Fri..Mon",
                ])
        }
    }

    private enum Field { case year, month, day, hour, minute, second }

    private mutating func value(_ field: Field) -> String {
        let number: Int
        switch field {
        case .year:
            number =
                chance(85)
                ? pick([2026, 2027, 2028, 2026 + int(5), 26, 27, 28, 2100, 2199, 99, 70, 69, 0])
                : pick([int(100), 1969, 1970, 2200, 1000])
        case .month: number = chance(97) ? 1 + int(12) : pick([0, 13, 99])
        case .day: number = chance(97) ? 1 + int(31) : pick([0, 32, 29, 28, 30, 31])
        case .hour: number = chance(50) ? int(5) : (chance(97) ? int(24) : pick([24, 25, 99]))
        case .minute: number = chance(98) ? int(60) : pick([60, 61, 99])
        case .second: number = chance(98) ? int(60) : pick([60, 61])
        }
        var text = String(number)
        if chance(30), field != .year { text = number < 10 ? "0" + text : text }
        if chance(1) {
            text = pick(["00000000000000000007", "4294967296", "2147483648", "99999999999999999999999"])
        }
        if field == .second, chance(25) {
            text +=
                "."
                + (chance(90)
                    ? pick(["5", "25", "123456", "1234565", "9999995", "0000001", "000000"])
                    : pick(["", "75x"]))
        }
        return text
    }

    /// Two values, usually in ascending order (a backwards range is an error).
    private mutating func orderedPair(_ field: Field) -> (String, String) {
        let first = value(field)
        let second = value(field)
        guard chance(88), let a = Double(first), let b = Double(second), a > b else {
            return (first, second)
        }
        return (second, first)
    }

    private mutating func element(_ field: Field) -> String {
        switch int(10) {
        case 0..<5: return value(field)
        case 5..<7:
            let (low, high) = orderedPair(field)
            return low + ".." + high
        case 7..<9:
            if field == .second, chance(30) { return value(field) + "/" + pick(["0.5", "1.5", "0.25"]) }
            guard chance(92) else { return value(field) + "/" + pick(["0", "40", "99", "7"]) }
            // A start and step that fit the field (systemd rejects steps that can never repeat).
            let (lowest, highest, steps): (Int, Int, [Int]) =
                switch field {
                case .year: (2026, 2199, [1, 2, 5, 10])
                case .month: (1, 12, [1, 2, 3, 4, 6])
                case .day: (1, 31, [1, 2, 3, 7, 10])
                case .hour: (0, 23, [1, 2, 3, 4, 6, 8, 12])
                case .minute, .second: (0, 59, [1, 5, 10, 15, 20, 30])
                }
            let step = pick(steps)
            return String(lowest + int(highest - lowest - step + 1)) + "/" + String(step)
        default:
            let (low, high) = orderedPair(field)
            return low + ".." + high + "/" + String(1 + int(6))
        }
    }

    private mutating func list(_ field: Field) -> String {
        if chance(28) { return chance(96) ? "*" : pick(["*/2", "**"]) }
        return (0..<(chance(75) ? 1 : 2 + int(2))).map { _ in element(field) }.joined(separator: ",")
    }

    private mutating func date() -> String {
        let separator = chance(15) ? "~" : "-"
        switch int(10) {
        case 0..<4: return list(.month) + separator + list(.day)
        case 4..<9: return list(.year) + "-" + list(.month) + separator + list(.day)
        default:
            return pick([
                "*-*-*-*", "2026~02-01", "*-*~*", "*~1", "-1", "2026-02", "*-02~1", "*-*~7/2", "02-29",
            ])
        }
    }

    private mutating func time() -> String {
        switch int(10) {
        case 0..<4: return list(.hour) + ":" + list(.minute)
        case 4..<9: return list(.hour) + ":" + list(.minute) + ":" + list(.second)
        default:
            return pick([
                "12", "12:", ":30", "1:2:3:4", "25:00", "*:*:*/5", "12:00 ", "1:2:3.5", "*:0/15",
                "9..17/2:00",
            ])
        }
    }

    private mutating func composed() -> String {
        var parts: [String] = []
        if chance(35) { parts.append(weekdays()) }
        let layout = int(10)
        if layout < 7 { parts.append(date()) }
        if layout >= 3 || parts.isEmpty { parts.append(time()) }
        let separator = chance(4) ? "  " : " "
        return parts.joined(separator: separator) + zoneSuffix(probability: 22)
    }

    private mutating func zoneSuffix(probability: Int) -> String {
        guard chance(probability) else { return "" }
        var zones = [
            "UTC", "utc", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata",
            "Asia/Tokyo",
            "Etc/GMT-14", "CET", "EST5EDT", "GMT", "Foo/Bar", "europe/berlin", "Europe/",
            "Europe//Berlin",
        ]
        zones += localAbbreviations
        zones += localAbbreviations.map { $0.lowercased() }
        return " " + pick(zones)
    }

    private mutating func mutated(_ text: String) -> String {
        var characters = Array(text)
        let junk: [Character] = ["x", ".", ",", "-", "~", ":", "/", "*", " ", "9", "@"]
        switch int(5) {
        case 0 where !characters.isEmpty: characters.remove(at: int(characters.count))
        case 1: characters.insert(pick(junk), at: int(characters.count + 1))
        case 2: characters.append(pick(junk))
        case 3: characters.insert(" ", at: 0)
        default: characters += Array(pick([" junk", "x", " 12:00", ","]))
        }
        return String(characters)
    }
}
