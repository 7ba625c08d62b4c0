import Foundation
import NIOCore
import NudgeAPI

/// What the generated decoders cannot say of a JSON request body: a `null` they would read as a field left out, and
/// which value of a body Foundation's `JSONDecoder` could not read at all ("the given data was not valid JSON", also
/// for a number that does not fit its field).
enum JSONBodyCheck {
    /// Refuses a `null` where the document allows none. Only an `ItemPatch` takes nulls (the body of
    /// `PATCH /v1/items/{id}`, a batch operation's `patch`), and its hand-written decoder says which of its fields do.
    /// Costs a scan for the bytes `null`; the body is parsed only when they are there.
    static func refuseNulls(in body: ByteBuffer, isItemPatch: Bool) throws(APIFailure) {
        guard !isItemPatch, body.readableBytesView.firstRange(of: Array("null".utf8)) != nil,
            let value = try? JSONSerialization.jsonObject(
                with: Data(body.readableBytesView),
                options: .fragmentsAllowed
            )
        else { return }
        // A batch operation's patch is an ItemPatch too: whether its fields may be null is its own to judge.
        let null = value is NSNull ? "" : firstPath(in: value) { $0 is NSNull && $1 != "patch" }?.path
        if let path = null {
            throw .badRequest(
                .invalidBody,
                path.isEmpty
                    ? "the body is null; send a JSON object"
                    : "field \(path): null is not a value it takes; leave the field out instead"
            )
        }
    }

    /// Why `JSONDecoder` found `body` unreadable: Foundation's reason when it is not JSON, or, when it is, the first
    /// number that is not a whole number of 64 bits (every number a request of the document holds is an integer).
    static func whyUnreadable(_ body: ByteBuffer) -> String {
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: Data(body.readableBytesView), options: .fragmentsAllowed)
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            return APICoding.unreadableBody + (reason.map { " (\($0.prefix(120)))" } ?? "")
        }
        // true and false are NSNumbers too, and read back as themselves.
        func isNotAnInteger(_ value: Any, _: String?) -> Bool {
            guard let number = value as? NSNumber else { return false }
            return NSNumber(value: number.int64Value) != number
        }
        if let (path, number) = firstPath(in: value, where: isNotAnInteger) {
            return "field \(path): \(number) is not a whole number from \(Int64.min) to \(Int64.max)"
        }
        return APICoding.unreadableBody
    }

    /// The first value, in key order, that `isWrong` flags, and its path; `isWrong` is also given the key under which
    /// the object or array holding the value is (nil for the body's own fields).
    private static func firstPath(
        in value: Any,
        at path: String = "",
        under key: String? = nil,
        where isWrong: (Any, _ heldUnder: String?) -> Bool
    ) -> (path: String, value: Any)? {
        switch value {
        case let object as [String: Any]:
            for (field, element) in object.sorted(by: { $0.key < $1.key }) {
                let fieldPath = path.isEmpty ? field : "\(path).\(field)"
                if isWrong(element, key) { return (fieldPath, element) }
                if let found = firstPath(in: element, at: fieldPath, under: field, where: isWrong) { return found }
            }
        case let array as [Any]:
            for (index, element) in array.enumerated() {
                let elementPath = "\(path)[\(index)]"
                if isWrong(element, key) { return (elementPath, element) }
                if let found = firstPath(in: element, at: elementPath, under: key, where: isWrong) { return found }
            }
        default:
            break
        }
        return nil
    }
}
