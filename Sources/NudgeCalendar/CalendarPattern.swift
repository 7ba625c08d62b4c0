/// The fields of a calendar expression a timer matches on. A nil list matches every value (`*`).
package struct CalendarPattern: Sendable, Hashable {
    package static let microsecondsPerSecond = 1_000_000
    package static let allWeekdays = 0b111_1111

    /// Bit 0 = Monday … bit 6 = Sunday; -1 when any weekday matches.
    package var weekdayBits = -1
    package var years: [CalendarComponent]?
    package var months: [CalendarComponent]?
    package var days: [CalendarComponent]?
    package var hours: [CalendarComponent]?
    package var minutes: [CalendarComponent]?
    /// In microseconds. Never nil once parsed: `*` is kept as "0, every second" (`0/1`), so it matches whole
    /// seconds only, as systemd does.
    package var seconds: [CalendarComponent]?
    /// `~`: days count back from the last day of the month.
    package var daysFromMonthEnd = false
    /// The expression ends in `UTC`: evaluate with UTC instead of a zone.
    package var isUTC = false
    /// A zone named at the end of the expression (a file under /usr/share/zoneinfo).
    package var zoneName: String?
    /// -1, or 0/1 when the expression ends in the local zone's standard/daylight abbreviation: wall times are
    /// then read as that flavour of local time (glibc's forced `tm_isdst`).
    package var dstFlag = -1
    /// The abbreviation `dstFlag` came from, as the local zone spells it (printed in the normalized form).
    package var dstAbbreviation: String?

    /// systemd's normalized form.
    package var normalizedText: String {
        var text = ""
        if weekdayBits > 0, weekdayBits < Self.allWeekdays {
            text += Self.weekdayText(weekdayBits) + " "
        }
        text += Self.listText(years, width: 4)
        text += "-"
        text += Self.listText(months, width: 2)
        text += daysFromMonthEnd ? "~" : "-"
        text += Self.listText(days, width: 2)
        text += " "
        text += Self.listText(hours, width: 2)
        text += ":"
        text += Self.listText(minutes, width: 2)
        text += ":"
        text += Self.secondsText(seconds)
        if isUTC {
            text += " UTC"
        } else if let zoneName {
            text += " " + zoneName
        } else if dstFlag >= 0, let dstAbbreviation, !dstAbbreviation.isEmpty {
            text += " " + dstAbbreviation
        }
        return text
    }

    private static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// Runs of three or more days print as `Mon..Wed`, runs of two as `Mon,Tue`.
    private static func weekdayText(_ bits: Int) -> String {
        var parts: [String] = []
        var day = 0
        while day < 7 {
            guard bits & (1 << day) != 0 else {
                day += 1
                continue
            }
            var last = day
            while last + 1 < 7, bits & (1 << (last + 1)) != 0 { last += 1 }
            switch last - day {
            case 0: parts.append(weekdayNames[day])
            case 1: parts.append(weekdayNames[day] + "," + weekdayNames[last])
            default: parts.append(weekdayNames[day] + ".." + weekdayNames[last])
            }
            day = last + 1
        }
        return parts.joined(separator: ",")
    }

    private static func padded(_ value: Int, width: Int) -> String {
        let digits = String(value)
        return digits.count >= width
            ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func listText(_ list: [CalendarComponent]?, width: Int) -> String {
        guard let list, !list.isEmpty else { return "*" }
        return list.map { component in
            var text = padded(component.start, width: width)
            if component.stop > 0 { text += ".." + padded(component.stop, width: width) }
            // A plain range has step 1, which is implied by `..`.
            if component.step > 0, !(component.stop > 0 && component.step == 1) {
                text += "/\(component.step)"
            }
            return text
        }.joined(separator: ",")
    }

    private static func secondsText(_ list: [CalendarComponent]?) -> String {
        let unit = microsecondsPerSecond
        // Any element that is "every second from 0" covers the whole list.
        guard let list, !list.contains(where: { $0.start == 0 && $0.stop < 0 && $0.step == unit })
        else {
            return "*"
        }
        func fraction(_ value: Int) -> String {
            value % unit > 0 ? "." + padded(value % unit, width: 6) : ""
        }
        return list.map { component in
            var text = padded(component.start / unit, width: 2) + fraction(component.start)
            if component.stop > 0 { text += ".." + padded(component.stop / unit, width: 2) }
            text += fraction(component.stop)
            if component.step > 0, !(component.stop > 0 && component.step == unit) {
                text += "/\(component.step / unit)"
            }
            text += fraction(component.step)
            return text
        }.joined(separator: ",")
    }
}
