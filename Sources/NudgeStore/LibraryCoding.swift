import Foundation
import NudgeCore

/// Turns the library into the store's bytes and back. Every way a file can fail to load becomes a `StoreError` that
/// names the byte or the field where it went wrong.
///
/// The file is a binary property list of the keys `StoreSchema` lists. XML property lists are read too, so a person
/// can convert a store to XML, edit it by hand and put it back; the next save writes binary again.
enum LibraryCoding {
    /// A value as a binary property list: the snapshot, and each change-log record.
    static func encode(_ value: some Encodable, path: String) throws(StoreError) -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        do {
            return try encoder.encode(value)
        } catch {
            throw .encodingFailed(path: path, reason: "\(error)")
        }
    }

    static func decode(_ bytes: [UInt8], path: String) throws(StoreError) -> StoreSnapshot {
        let isXML = isXML(bytes)
        if let problem = isXML ? xmlProblem(bytes) : BinaryPropertyListCheck.problem(in: bytes) {
            throw .notAPropertyList(path: path, problem: problem)
        }
        // The fast way for the layout nudge writes; whatever it does not expect, Foundation reads, naming the field.
        if !isXML, let snapshot = SnapshotReader.read(bytes) { return snapshot }
        let data = Data(bytes)
        let decoder = PropertyListDecoder()

        // The version first, so a newer layout is reported as newer, not as a broken field.
        let formatVersion: Int
        do {
            formatVersion = try decoder.decode(VersionOnly.self, from: data).formatVersion
        } catch {
            throw storeError(for: error, path: path, isXML: isXML)
        }
        let current = StoreSchema.currentVersion
        guard formatVersion <= current else {
            throw .newerFormat(path: path, found: formatVersion, supported: current)
        }
        guard formatVersion >= 1 else {
            throw .invalidContent(
                path: path,
                field: "formatVersion",
                problem: "\(formatVersion) is not a format version; versions start at 1"
            )
        }

        do {
            return try decoder.decode(StoreSnapshot.self, from: data)
        } catch {
            throw storeError(for: error, path: path, isXML: isXML)
        }
    }

    /// A change-log record's payload: always a binary property list, checked before Foundation parses it.
    static func decodeRecord(_ payload: ArraySlice<UInt8>, path: String) throws(StoreError) -> LogRecord {
        let bytes = Array(payload)
        if let problem = BinaryPropertyListCheck.problem(in: bytes) {
            throw .notAPropertyList(path: path, problem: problem)
        }
        do {
            return try PropertyListDecoder().decode(LogRecord.self, from: Data(bytes))
        } catch {
            throw storeError(for: error, path: path, isXML: false)
        }
    }

    // MARK: Private

    /// Just the version, which every layout keeps at the top level.
    private struct VersionOnly: Decodable {
        var formatVersion: Int
    }

    /// Decoding errors name the field through their coding path; that path is what the user needs to fix the file.
    private static func storeError(for error: any Error, path: String, isXML: Bool) -> StoreError {
        guard let error = error as? DecodingError else {
            return .notAPropertyList(path: path, problem: "could not be decoded (\(error))")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return .invalidContent(path: path, field: fieldPath(context.codingPath + [key]), problem: "it is missing")
        case .typeMismatch(let type, let context):
            return .invalidContent(
                path: path,
                field: fieldPath(context.codingPath),
                problem: "it should be \(typeName(type)) (\(context.debugDescription))"
            )
        case .valueNotFound(let type, let context):
            return .invalidContent(
                path: path,
                field: fieldPath(context.codingPath),
                problem: "it has no value where \(typeName(type)) is needed"
            )
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // The structural check passed (or the file is XML), but the parser still failed inside an object.
            let kind = isXML ? "a valid XML property list" : "a valid binary property list"
            // The parser's own words ("Invalid marker", "unexpected EOF ...") are in the underlying error.
            let detail = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return .notAPropertyList(path: path, problem: "is not \(kind) (\(detail ?? context.debugDescription))")
        case .dataCorrupted(let context):
            return .invalidContent(path: path, field: fieldPath(context.codingPath), problem: context.debugDescription)
        @unknown default:
            return .notAPropertyList(path: path, problem: "could not be decoded (\(error))")
        }
    }

    /// The field a decoding error is about; the path is what the user needs to fix the file.
    private static func fieldPath(_ codingPath: [any CodingKey]) -> String {
        let path = NudgeCore.fieldPath(codingPath)
        return path.isEmpty ? "(the top level)" : path
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: "an integer"
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Date.Type: "a date"
        case is [String: Any].Type: "a dictionary"
        case is [Any].Type: "an array"
        default: "\(type)"
        }
    }

    /// Elements nested deeper than any store needs (about 8), with room to spare.
    static let maximumXMLDepth = 64

    /// Foundation's XML parser recurses once per nested element and overflows the stack at some thousands, killing
    /// the process; so the nesting is measured first, by counting start and end tags (values cannot hold a raw `<`).
    private static func xmlProblem(_ bytes: [UInt8]) -> String? {
        // Foundation's XML parser stops the process on bytes that are not UTF-8 in some places (an integer's
        // whitespace: found by scripts/fuzz), and a property list must be UTF-8 anyway.
        if let offset = firstByteNotUTF8(bytes) {
            return "is an XML property list that is not UTF-8 (at byte \(offset)), so it is not read"
        }
        return xmlNestingProblem(bytes)
    }

    /// Where `bytes` stop being UTF-8, if they do.
    private static func firstByteNotUTF8(_ bytes: [UInt8]) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    private static func xmlNestingProblem(_ bytes: [UInt8]) -> String? {
        var depth = 0
        var index = 0
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            guard let close = bytes[open...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
            index = close + 1
            switch bytes[open + 1] {
            case UInt8(ascii: "/"): depth -= 1
            case UInt8(ascii: "?"), UInt8(ascii: "!"): continue  // declaration, doctype, comment
            default:
                if bytes[close - 1] == UInt8(ascii: "/") { continue }  // `<dict/>`: empty, no deeper
                depth += 1
                if depth > maximumXMLDepth {
                    return
                        "is an XML property list nested more than \(maximumXMLDepth) elements deep (at byte \(open)),"
                        + " deeper than any nudge store, so it is not read"
                }
            }
        }
        return nil
    }

    /// XML property lists start with an XML declaration or the plist element, maybe after a BOM and whitespace.
    private static func isXML(_ bytes: [UInt8]) -> Bool {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let body = bytes.starts(with: bom) ? bytes.dropFirst(bom.count) : bytes[...]
        let start = body.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        return ["<?xml", "<!DOCTYPE plist", "<plist"].contains { start.starts(with: Array($0.utf8)) }
    }
}

/// The store's files as `ChecklistStore.open` reads them: `bytes` as a snapshot (binary or XML property list, checked,
/// decoded, validated) and as a change log (framed records, checksums, each record's property list). Any bytes give a
/// result or a `StoreError`, never a crash. For the store fuzz target (Tests/Fuzz/Store), which reaches it from
/// outside the module, so that it builds without `@testable` in every configuration.
package func readAsStoreFiles(_ bytes: [UInt8]) {
    guard bytes.count <= ChecklistStore.maximumFileSize else { return }
    _ = try? LibraryCoding.decode(bytes, path: "fuzz.plist")
    _ = try? ChangeLogFormat.scan(bytes, path: "fuzz.plist.log") { _, _ in }
}
