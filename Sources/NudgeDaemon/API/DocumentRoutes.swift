/// The routes of the document nudged serves (`openAPIDocument`, docs/openapi.yaml), read from it once: which methods
/// each path takes, so that a known path asked with another method is answered 405 with `Allow` rather than 404. The
/// router knows its routes but cannot say them; the document is where they are written.
enum DocumentRoutes {
    /// Each path of the document, as segments (`{id}` stands for any one), and its methods, upper case.
    static let all: [(segments: [Substring], methods: [String])] = read(openAPIDocument)

    /// The methods `path` (without its query) takes, if it is one of the document's paths.
    static func methods(for path: String) -> [String]? {
        let asked = path.split(separator: "/", omittingEmptySubsequences: false)
        return all.first { route in
            route.segments.count == asked.count
                && zip(route.segments, asked).allSatisfy { template, segment in
                    template.hasPrefix("{") || template == segment
                }
        }?.methods
    }

    /// The document's `paths:`: a path is a key indented two spaces, its operations keys indented four.
    static func read(_ document: String) -> [(segments: [Substring], methods: [String])] {
        let operations: Set<Substring> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
        var routes: [(segments: [Substring], methods: [String])] = []
        var inPaths = false
        for line in document.split(separator: "\n") {
            if line == "paths:" {
                inPaths = true
            } else if inPaths, !line.hasPrefix(" ") {
                break
            } else if inPaths, line.hasPrefix("  /"), line.hasSuffix(":") {
                let path = line.dropFirst(2).dropLast()
                routes.append((path.split(separator: "/", omittingEmptySubsequences: false), []))
            } else if inPaths, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"),
                operations.contains(line.dropFirst(4).dropLast()), !routes.isEmpty
            {
                routes[routes.count - 1].methods.append(line.dropFirst(4).dropLast().uppercased())
            }
        }
        return routes
    }
}
