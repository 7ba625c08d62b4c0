import Foundation
import Testing

/// All store tests, run one at a time. Two of them are exit tests, which fork this process; until the child execs
/// it shares every descriptor, store locks included (a flock belongs to the open file description), so a test
/// that closed a store and reopened it at that instant would find its own lock still held.
@Suite(.serialized) enum NudgeStoreTests {}

/// The clock reading the tests' items are made at.
let testNow = Date(timeIntervalSince1970: 1_800_000_000)
