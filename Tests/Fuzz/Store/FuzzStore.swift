import FuzzSupport
import NudgeStore

/// The store's files as `ChecklistStore.open` reads them (`readAsStoreFiles`): any bytes give a result or a
/// `StoreError`, never a crash, and never take long.
func fuzzStore(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    readAsStoreFiles(fuzzInput(data, size))
    return 0
}

@main enum Main {
    static func main() { Fuzz.main("fuzz-store", fuzzStore) }
}
