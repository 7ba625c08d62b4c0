import Foundation

extension Decoder {
    /// A value coded as one string, in the exact form the store and the API hold it (`CatchUp`, `Nag`): `read` takes
    /// the string, and what it refuses is a decoding error saying why.
    func decodeExactText<Value>(_ read: (String) throws(ModelError) -> Value) throws -> Value {
        let text = try singleValueContainer().decode(String.self)
        do {
            return try read(text)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: codingPath, debugDescription: error.description)
            )
        }
    }
}
