import FuzzSupport

@testable import NudgeStore

/// The store file as `ChecklistStore.open` reads it (binary or XML property list, checked, decoded, validated):
/// any bytes give a library or a `StoreError`, never a crash, and never take long.
func fuzzStore(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    guard bytes.count <= ChecklistStore.maximumFileSize else { return 0 }
    _ = try? LibraryCoding.decode(bytes, path: "fuzz.plist")
    return 0
}

@main enum Main {
    static func main() { Fuzz.main("fuzz-store", fuzzStore) }
}
