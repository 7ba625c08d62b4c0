extension String {
    /// This text on one line: newlines, tabs and the other control characters (C0, DEL, C1, and the Unicode line and
    /// paragraph separators) written as escapes, `\n` or `\u{1B}`, so it can neither start a line of its own nor
    /// drive a terminal. With `quoting`, `"` and `\` are escaped too, so the text reads back exactly between quotes.
    /// With `invisible`, so are the format characters that draw nothing (a byte-order mark, zero-width spaces and
    /// joiners, direction overrides): for quoting what a person must find in a file, not for showing their text.
    public func escapingControlCharacters(quoting: Bool = false, invisible: Bool = false) -> String {
        var result = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\"" where quoting: result += "\\\""
            case "\\" where quoting: result += "\\\\"
            case _
            where scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
                || (invisible && scalar.properties.generalCategory == .format):
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// This text with each character that `replacement` gives a replacement for replaced by it ("" drops it).
    public func replacingCharacters(_ replacement: (Character) -> String?) -> String {
        var result = ""
        for character in self {
            if let replaced = replacement(character) { result += replaced } else { result.append(character) }
        }
        return result
    }
}
