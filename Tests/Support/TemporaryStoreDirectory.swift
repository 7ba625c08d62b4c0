import Foundation

/// A directory of its own under the temporary directory, for one store.
package struct TemporaryStoreDirectory {
    package let path: String
    package var storePath: String { path + "/Checklists.plist" }

    package init() throws {
        path = NSTemporaryDirectory() + "nudge-write-failures-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    package func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
