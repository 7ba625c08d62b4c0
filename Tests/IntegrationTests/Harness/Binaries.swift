import Foundation
import Synchronization
import Testing

/// The built binaries, from the same build as this test bundle and beside it (`scripts/build --build-tests` puts
/// them all in .build/release; a `swift build --build-tests` of another configuration, in its own folder).
enum Binaries {
    /// This file is Tests/IntegrationTests/Harness/Binaries.swift.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    static let directory = URL(
        fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? packageRoot
            + "/.build/release/nudgePackageTests.xctest"
    ).deletingLastPathComponent().path
    static let nudged = directory + "/nudged"
    static let nudge = directory + "/nudge"

    static func require(_ path: String) throws {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw Failure("\(path) is not built; run scripts/build --build-tests (scripts/test does) before the tests")
        }
    }
}
