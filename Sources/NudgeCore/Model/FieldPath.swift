/// Names a field the way a person reads it in an error: `lists[0].items[2].dueDate`, array positions as subscripts
/// and keys joined by dots. Empty for the top level. The store and the API both name bad fields this way.
public func fieldPath(_ codingPath: [any CodingKey]) -> String {
    var text = ""
    for key in codingPath {
        if let index = key.intValue {
            text += "[\(index)]"
        } else {
            text += (text.isEmpty ? "" : ".") + key.stringValue
        }
    }
    return text
}
