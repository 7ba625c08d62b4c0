/// A time of day on the 24-hour clock as people and config files write it, `HH:MM` (`07:30`), kept as seconds after
/// midnight: nudged's `digestTime` and a list's own.
public enum TimeOfDay {
    /// `07:30` is 27,000; exactly two digits each, 00:00 to 23:59; nil for anything else.
    public static func seconds(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ $0.utf8.count == 2 && $0.utf8.allSatisfy { (48...57).contains($0) } }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), hour < 24, minute < 60
        else { return nil }
        return hour * 3600 + minute * 60
    }

    /// 27,000 is `07:30`.
    public static func text(_ seconds: Int) -> String {
        let minutes = seconds / 60
        return String(minutes / 60 + 100).dropFirst() + ":" + String(minutes % 60 + 100).dropFirst()
    }
}
