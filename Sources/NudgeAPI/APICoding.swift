import Foundation

/// How the API writes and reads JSON: ISO 8601 dates with fractional seconds and an offset, keys sorted, unknown
/// fields refused by the request types themselves.
public enum APICoding {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(format(date))
        }
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription:
                        "\"\(text)\" is not an ISO 8601 date-time with an offset, like 2026-12-01T09:00:00Z"
                )
            }
            return date
        }
        return decoder
    }

    /// `2026-12-01T09:00:00.250Z`.
    public static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Reads an ISO 8601 instant, with or without fractional seconds. An offset is required: on the wire an
    /// instant must be unambiguous (clients parse people's local times themselves, with `TimeInput`).
    public static func parse(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}

/// Decoding helper: refuses fields a request type does not know, naming the first one, so a typo in a client
/// (`"shouldremind"`) is an error instead of a silent no-op.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    func refuseUnknownKeys<Key: CodingKey & CaseIterable>(_: Key.Type) throws {
        let known = Set(Key.allCases.map(\.stringValue))
        let container = try self.container(keyedBy: AnyKey.self)
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !known.contains($0) }) {
            let valid = Key.allCases.map(\.stringValue).joined(separator: ", ")
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath + [AnyKey(stringValue: unknown)],
                    debugDescription: "unknown field \"\(unknown)\"; the fields are: \(valid)"
                )
            )
        }
    }
}
