import Foundation
import Testing

/// Every relative link in the README, the changelog and docs/ leads somewhere: to a file of the repository, and, with
/// a `#fragment`, to a heading of that file (as GitHub names headings' anchors).
@Suite struct DocumentationLinkTests {
    /// The pages people read, relative to the package root.
    static let pages: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: Binaries.packageRoot + "/docs")) ?? []
        return ["README.md", "CHANGELOG.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    @Test func thereArePagesToCheck() {
        #expect(Self.pages.count >= 10, "\(Self.pages)")
    }

    @Test(arguments: pages)
    func everyRelativeLinkResolves(page: String) throws {
        let path = Binaries.packageRoot + "/" + page
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let directory = (path as NSString).deletingLastPathComponent
        var broken: [String] = []
        for link in Self.links(in: text) where !link.contains("://") && !link.hasPrefix("mailto:") {
            let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let target = parts[0].isEmpty ? path : (directory as NSString).appendingPathComponent(parts[0])
            guard FileManager.default.fileExists(atPath: target) else {
                broken.append("\(link): no file \(target)")
                continue
            }
            if parts.count == 2, target.hasSuffix(".md") {
                let anchors = Self.anchors(in: try String(contentsOfFile: target, encoding: .utf8))
                if !anchors.contains(parts[1]) { broken.append("\(link): no heading with anchor #\(parts[1])") }
            }
        }
        #expect(broken.isEmpty, "\(page): \(broken.joined(separator: "; "))")
    }

    @Test func aBrokenLinkAndAMissingAnchorAreFound() {
        let text = "see [a](docs/NOWHERE.md) and [b](#no-such-heading), `[c](not a link)` aside\n# A heading\n"
        #expect(Self.links(in: text) == ["docs/NOWHERE.md", "#no-such-heading"])
        #expect(Self.anchors(in: text) == ["a-heading"])
    }

    /// The targets of inline links and images, `[text](target)`, outside code spans and indented code.
    static func links(in text: String) -> [String] {
        var found: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.hasPrefix("    ") {
            // Code spans hold examples, not links.
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            found += prose.matches(of: /\]\(([^)\s]+)\)/).map { String($0.output.1) }
        }
        return found
    }

    /// The anchors GitHub gives a page's headings: lowercased, punctuation but `-` and `_` dropped, spaces as `-`.
    static func anchors(in text: String) -> Set<String> {
        var anchors: Set<String> = []
        for line in text.split(separator: "\n") where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            let kept = title.unicodeScalars.filter {
                CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == " "
            }
            anchors.insert(String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-"))
        }
        return anchors
    }
}
