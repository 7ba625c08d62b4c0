import Foundation

/// A fresh directory for one test; `withTemporaryDirectory` removes it afterwards, whatever happens.
struct TemporaryDirectory: Sendable {
    let path: String

    /// Where tests put the store: the name the daemon uses.
    var storePath: String { path + "/Checklists.plist" }

    /// Everything in the directory except the lock file, which opening a store always leaves behind.
    func entries() throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: path)).subtracting(["Checklists.plist.lock"])
    }

    /// Where the store's change log is.
    var logPath: String { storePath + ".log" }

    /// Temporary files a write left beside the store or its log.
    func temporaryFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).filter {
            $0.hasPrefix(".Checklists.plist.tmp-") || $0.hasPrefix(".Checklists.plist.log.tmp-")
        }
    }
}

func withTemporaryDirectory<Result>(_ body: (TemporaryDirectory) throws -> Result) throws -> Result {
    let directory = try TemporaryDirectory.make()
    defer { try? FileManager.default.removeItem(atPath: directory.path) }
    return try body(directory)
}

extension TemporaryDirectory {
    static func make() throws -> TemporaryDirectory {
        let base = FileManager.default.temporaryDirectory.path
        var template = Array((base + (base.hasSuffix("/") ? "" : "/") + "nudge-store-test-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        return TemporaryDirectory(path: String(cString: created))
    }
}
