import NudgeCore
import Testing

@Suite("Display width")
struct TerminalTextTests {
    @Test(arguments: [
        ("water", 5),
        ("日本語", 6),  // East Asian wide
        ("ｆｕｌｌ", 8),  // fullwidth Latin
        ("한국어", 6),  // Hangul syllables
        ("café", 4),  // precomposed é
        ("cafe\u{301}", 4),  // e + combining acute: one column
        ("👩‍👩‍👧", 2),  // a family: one cluster, one emoji
        ("👍🏽", 2),  // emoji with a skin-tone modifier
        ("❤️", 2),  // text character with emoji presentation selector
        ("⏰", 2),
        ("a\u{200B}b", 2),  // zero-width space draws nothing
    ])
    func widthIsMeasuredInTerminalColumns(_ text: String, _ width: Int) {
        #expect(text.displayWidth == width)
    }

    @Test func truncationCutsWholeCharactersAndMarksTheCut() {
        #expect("water the plants".truncated(toWidth: 8) == "water t…")
        #expect("日本語のテキスト".truncated(toWidth: 7) == "日本語…")  // 6 columns and the mark; no half character
        #expect("short".truncated(toWidth: 8) == "short")
        #expect("👩‍👩‍👧 family".truncated(toWidth: 4) == "👩‍👩‍👧 …")
        #expect("abc".truncated(toWidth: 0) == "")
    }
}
