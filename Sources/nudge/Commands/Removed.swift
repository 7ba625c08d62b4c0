import ArgumentParser
import Foundation
import NudgeAPI

/// What `rm --json` prints for an item it removed.
struct Removed: Encodable, Sendable {
    let itemID: Int
    let removed = true
}
