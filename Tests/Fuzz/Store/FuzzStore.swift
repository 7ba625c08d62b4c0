import FuzzSupport

@testable import NudgeStore

/// The store's files as `ChecklistStore.open` reads them: the snapshot (binary or XML property list, checked,
/// decoded, validated) and the change log (framed records, checksums, each record's property list). Any bytes give
/// a result or a `StoreError`, never a crash, and never take long.
func fuzzStore(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    guard bytes.count <= ChecklistStore.maximumFileSize else { return 0 }
    _ = try? LibraryCoding.decode(bytes, path: "fuzz.plist")
    _ = try? ChangeLogFormat.scan(bytes, path: "fuzz.plist.log") { _, _ in }
    return 0
}

@main enum Main {
    static func main() { Fuzz.main("fuzz-store", fuzzStore) }
}
