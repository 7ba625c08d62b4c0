import Foundation
import Synchronization

/// Splits a byte stream into lines as it arrives, looking at each byte once: a chunk is scanned only for the
/// newlines it holds, and only the unfinished tail is carried to the next chunk.
struct LineSplitter {
    private var partial: [UInt8] = []

    /// The lines `chunk` completes, without their newlines.
    mutating func lines(completedBy chunk: UnsafeRawBufferPointer) -> [[UInt8]] {
        guard let base = chunk.baseAddress else { return [] }
        var lines: [[UInt8]] = []
        var start = 0
        while start < chunk.count, let found = memchr(base + start, 0x0A, chunk.count - start) {
            let newline = base.distance(to: UnsafeRawPointer(found))
            partial.append(contentsOf: chunk[start..<newline])
            lines.append(partial)
            partial = []
            start = newline + 1
        }
        partial.append(contentsOf: chunk[start...])
        return lines
    }
}

/// The lines a child process writes to one of its outputs, which goes to a file: each look reads only what was
/// written since the last one, and parses each new line once. Nothing runs in the background (a file handle's
/// readability handler is a dispatch source, and tearing one down while it fires has crashed the test process).
final class LineCollector<Line: Sendable>: Sendable {
    private struct State: ~Copyable {
        let descriptor: Int32
        var splitter = LineSplitter()
        var lines: [Line] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)

        deinit { close(descriptor) }
    }

    /// The file the child writes; hand `writer()` to it as its output.
    let path: String
    private let state: Mutex<State>
    private let parse: @Sendable ([UInt8]) -> Line

    /// Creates `path` empty and collects what is written to it, each line parsed by `parse`.
    init(path: String, parse: @escaping @Sendable ([UInt8]) -> Line) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw POSIXError(.EACCES, userInfo: [NSFilePathErrorKey: path])
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        self.path = path
        self.parse = parse
        state = Mutex(State(descriptor: descriptor))
    }

    /// A handle for the child to write to.
    func writer() throws -> FileHandle {
        try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    /// Every line so far.
    var lines: [Line] { withLines { Array($0) } }

    /// The lines from index `start` on: a caller that remembers where it stopped looks at each line once.
    func lines(from start: Int) -> [Line] {
        withLines { Array($0[min(start, $0.count)...]) }
    }

    private func withLines<Result>(_ body: ([Line]) -> Result) -> Result {
        state.withLock { state in
            while true {
                let count = state.buffer.withUnsafeMutableBytes { read(state.descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                let complete = state.buffer.withUnsafeBytes {
                    state.splitter.lines(completedBy: UnsafeRawBufferPointer(rebasing: $0[..<count]))
                }
                state.lines += complete.map(parse)
            }
            return body(state.lines)
        }
    }
}

extension LineCollector where Line == String {
    /// Collects text lines, repairing bytes that are not UTF-8.
    convenience init(path: String) throws {
        try self.init(path: path) { String(decoding: $0, as: UTF8.self) }
    }

    var text: String { lines.joined(separator: "\n") }

    /// The last `count` lines, for a failure message.
    func tail(_ count: Int = 40) -> String {
        withLines { $0.suffix(count).joined(separator: "\n") }
    }
}
