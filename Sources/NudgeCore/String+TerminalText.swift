/// How wide text is on a terminal, in columns, and how to cut it to fit. A character (grapheme cluster) is as wide
/// as its first scalar: 2 for East Asian wide and fullwidth characters and for emoji shown as pictures, 0 for a
/// cluster that draws nothing (a lone combining mark or format character), 1 otherwise; combining marks and emoji
/// modifiers within a cluster add nothing. This is what terminals following Unicode's East Asian Width and emoji
/// presentation draw; a terminal with other rules may differ by a column on rare characters.
extension String {
    public var displayWidth: Int {
        reduce(0) { $0 + $1.displayWidth }
    }

    /// The longest prefix at most `width` columns wide, ending in `…` when anything was cut.
    public func truncated(toWidth width: Int) -> String {
        guard displayWidth > width else { return self }
        guard width > 0 else { return "" }
        var result = ""
        var used = 0
        for character in self {
            let next = character.displayWidth
            if used + next > width - 1 { break }
            result.append(character)
            used += next
        }
        return result + "…"
    }
}

extension Character {
    public var displayWidth: Int {
        guard let first = unicodeScalars.first else { return 0 }
        let properties = first.properties
        if unicodeScalars.contains("\u{FE0F}") || properties.isEmojiPresentation { return 2 }
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        return Self.isWide(first.value) ? 2 : 1
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges of Unicode 15's EastAsianWidth.txt, merged where adjacent.
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3, 0x25FD...0x25FE,
            0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE,
            0x26C4...0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA, 0x26FD, 0x2705,
            0x270A...0x270B, 0x2728, 0x274C, 0x274E, 0x2753...0x2755, 0x2757, 0x2795...0x2797, 0x27B0, 0x27BF,
            0x2B1B...0x2B1C, 0x2B50, 0x2B55, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
            0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F260...0x1F265, 0x1F300...0x1F64F,
            0x1F680...0x1F6FF, 0x1F7E0...0x1F7EB, 0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD,
            0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
