import Foundation
import NudgeAPI

/// Writes to stdout and stderr without buffering, so each line reaches a pipe as soon as it is written
/// (`nudge watch | grep fired`). A closed pipe ends the process, as it does for any Unix filter.
enum Output {
    static func line(_ text: String) {
        write(text + "\n", to: .standardOutput)
    }

    static func lines(_ texts: [String]) {
        guard !texts.isEmpty else { return }
        write(texts.joined(separator: "\n") + "\n", to: .standardOutput)
    }

    /// `--json`: an answer as the daemon writes it (keys sorted, instants in UTC), on one line.
    static func json(_ value: some Encodable) {
        do {
            json(try APICoding.encoder().encode(value))
        } catch {
            // Answers are plain structs of strings, numbers and instants: encoding them cannot fail.
            preconditionFailure("cannot encode an answer: \(error)")
        }
    }

    /// `--json`: a document the daemon sent, ending with a newline. An empty one prints nothing.
    static func json(_ data: Data) {
        guard !data.isEmpty else { return }
        var data = data
        if data.last != UInt8(ascii: "\n") { data.append(UInt8(ascii: "\n")) }
        try? FileHandle.standardOutput.write(contentsOf: data)
    }

    /// `--json` for answers that come in pages: one JSON array on one line, written a page at a time, so memory
    /// holds one page however long the array.
    struct JSONArray {
        private var started = false

        /// An element already encoded, such as the daemon's error document.
        mutating func append(raw element: Data) {
            let text = String(decoding: element, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            write((started ? "," : "[") + text, to: .standardOutput)
            started = true
        }

        mutating func append(_ elements: [some Encodable]) {
            for element in elements {
                do {
                    append(raw: try APICoding.encoder().encode(element))
                } catch {
                    preconditionFailure("cannot encode an answer: \(error)")
                }
            }
        }

        func finish() {
            write(started ? "]\n" : "[]\n", to: .standardOutput)
        }
    }

    /// `nudge: <message>` on stderr.
    static func error(_ message: String) {
        write("nudge: \(message)\n", to: .standardError)
    }

    /// Raw text on stderr, as ArgumentParser formats its usage errors.
    static func standardError(_ text: String) {
        write(text.hasSuffix("\n") ? text : text + "\n", to: .standardError)
    }

    private static func write(_ text: String, to handle: FileHandle) {
        try? handle.write(contentsOf: Data(text.utf8))
    }
}
