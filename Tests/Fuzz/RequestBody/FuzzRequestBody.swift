import Foundation
import FuzzSupport
import NudgeAPI
import NudgeCore

@testable import NudgeDaemon

/// A request body as nudged's routes read it: JSON, with Foundation's `JSONDecoder` (the generated server's
/// converter uses one, configured only for dates, which `Instant` decodes itself), into each of the document's
/// request schemas, and on to what the routes make of them. Any bytes give a value or a
/// `DecodingError`/`ModelError`, never a crash, and never take long. (The 1 MiB limit comes first, in
/// `ErrorDocumentMiddleware`; a target's input is never that large.)
func fuzzRequestBody(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let body = Data(fuzzInput(data, size))
    let decoder = JSONDecoder()
    if let item = try? decoder.decode(Components.Schemas.NewItem.self, from: body) {
        _ = try? item.item(listID: 1)
    }
    if let patch = try? decoder.decode(ItemPatch.self, from: body) {
        _ = patch.edit
        _ = try? patch.warnings.map(Warnings.parse)
    }
    if let list = try? decoder.decode(Components.Schemas.NewList.self, from: body) {
        _ = try? IconName(requested: list.iconName)
    }
    if let patch = try? decoder.decode(Components.Schemas.ListPatch.self, from: body) {
        _ = try? IconName(requested: patch.iconName)
    }
    return 0
}

@main enum Main {
    static func main() { Fuzz.main("fuzz-request-body", fuzzRequestBody) }
}
