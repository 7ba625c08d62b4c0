import Foundation
import FuzzSupport
import NudgeDaemon

/// A request body as nudged's routes read it (`readAsEveryRequestBody`): any bytes give a value or a
/// `DecodingError`/`ModelError`, never a crash, and never take long. (The 1 MiB limit comes first, in
/// `ErrorDocumentMiddleware`; a target's input is never that large.)
func fuzzRequestBody(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    readAsEveryRequestBody(Data(fuzzInput(data, size)))
    return 0
}

@main enum Main {
    static func main() { Fuzz.main("fuzz-request-body", fuzzRequestBody) }
}
