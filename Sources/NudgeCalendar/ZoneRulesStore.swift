import Foundation
import Synchronization

/// Loads zone rules from a zone database (/usr/share/zoneinfo) once per name and keeps them, thread-safely, for later
/// calls. The one part of the calendar engine that reads files: whoever evaluates calendar expressions makes one
/// (nudged at start, `nudge calendar`, a test with its own database) and hands it to `CalendarSpec`.
///
/// Bounded: past `capacity` names the store forgets everything and starts again, which keeps memory flat even if
/// someone feeds it endless distinct (valid) names; real programs use a handful of zones.
public final class ZoneRulesStore: Sendable {
    private let directory: String
    private let capacity: Int
    /// nil values remember names that are not valid zones.
    private let rulesByName = Mutex<[String: ZoneRules?]>([:])

    /// Rules from the TZif files under `directory`, at most `capacity` zones at a time.
    public init(directory: String = "/usr/share/zoneinfo", capacity: Int = 64) {
        self.directory = directory
        self.capacity = capacity
    }

    /// The rules for a zone name as systemd accepts it at the end of a calendar expression (its
    /// `timezone_is_valid`): letters, digits, `-_+/`, no leading, trailing or doubled `/`, naming a regular file
    /// that starts with the TZif magic. Nil if systemd would not accept the name.
    func rules(named name: String) -> ZoneRules? {
        guard Self.isPlausibleZoneName(name) else { return nil }
        if let known = rulesByName.withLock({ $0[name] }) { return known }
        // Read outside the lock: another thread may load the same file meanwhile, and one of the two is kept.
        let loaded = load(name)
        return rulesByName.withLock { rules in
            if rules.count >= capacity { rules.removeAll(keepingCapacity: true) }
            rules[name] = .some(loaded)
            return loaded
        }
    }

    /// The rules for a Foundation time zone: its TZif file when it has one, else its fixed current offset.
    ///
    /// Foundation on Linux reports `TimeZone(identifier: "UTC")` (and `TZ=UTC`) as "GMT", so "GMT" is read as
    /// UTC, the far more common setting; the only visible difference is the abbreviation printed.
    func rules(for zone: TimeZone) -> ZoneRules {
        let name = zone.identifier == "GMT" ? "UTC" : zone.identifier
        if let rules = rules(named: name) { return rules }
        let offset = zone.secondsFromGMT()
        return ZoneRules(fixedOffset: offset, abbreviation: zone.abbreviation() ?? zone.identifier)
    }

    private func load(_ name: String) -> ZoneRules? {
        let path = directory + "/" + name
        var isDirectory: ObjCBool = false
        // systemd opens the path (following symbolic links) and insists on a regular file.
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
            !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: path)
        else { return nil }
        return ZoneRules(tzif: Array(data))
    }

    static func isPlausibleZoneName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, first != UInt8(ascii: "/"), bytes.count < 4096 else {
            return false
        }
        var previousWasSlash = false
        for byte in bytes {
            let isAllowed =
                (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "/")
            guard isAllowed else { return false }
            let isSlash = byte == UInt8(ascii: "/")
            if isSlash, previousWasSlash { return false }
            previousWasSlash = isSlash
        }
        return !previousWasSlash
    }
}

extension ZoneRulesStore {
    /// Whether the zone database has rules for `name` that nudge can read.
    public func hasRules(named name: String) -> Bool { rules(named: name) != nil }
}
