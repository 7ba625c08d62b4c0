import AsyncHTTPClient
import Foundation
import Histogram

/// `nudge-bench edit-floor`: nudged's durable edit beside the floor, `nudge-floor` (Benchmarks/EditFloor: Hummingbird
/// on a Unix socket, the same request, an append and an fdatasync per edit with group commit, nothing else), measured
/// the same way on the same machine and directory, one after the other in each run: latency with one client (p50,
/// p99), latency with 16 clients at once, and the server's CPU per edit (user and system, from /proc). Prints each
/// run, then the median (min–max) of each figure and nudged's ratio to the floor.
enum EditFloorBench {
    /// What one server did in one run.
    struct Figures {
        var oneP50 = 0.0
        var oneP99 = 0.0
        var sixteenP50 = 0.0
        var sixteenP99 = 0.0
        /// Milliseconds of CPU per edit, one client.
        var cpuPerEdit = 0.0

        var line: String {
            String(
                format: "1 client p50 %.2f p99 %.2f ms, 16 clients p50 %.2f p99 %.2f ms, CPU %.3f ms per edit",
                oneP50,
                oneP99,
                sixteenP50,
                sixteenP99,
                cpuPerEdit
            )
        }
    }

    static func run(_ options: Options, http: HTTPClient) async throws {
        let floor = URL(fileURLWithPath: options.nudged).deletingLastPathComponent().appendingPathComponent(
            "nudge-floor"
        )
        say(
            "nudge-bench edit-floor: \(options.nudged) against \(floor.path), \(options.runs) runs per size, "
                + "\(options.edits) edits with one client, \(options.clients) × \(options.edits / 4) with "
                + "\(options.clients)"
        )
        for size in options.sizes {
            let template = try StoreTemplate.prepare(
                items: size,
                layout: options.layout,
                fullLog: false,
                in: options.work
            )
            var nudgedRuns: [Figures] = []
            var floorRuns: [Figures] = []
            for run in 1...options.runs {
                let directory = try template.freshCopy(in: options.work)
                let daemon = try RunningDaemon(nudged: options.nudged, directory: directory)
                defer { daemon.kill() }
                _ = try daemon.awaitReady()
                let ours = try await measure(
                    API(http: http, socket: directory + "/nudged.sock"),
                    process: daemon.process.processIdentifier,
                    items: size,
                    options: options
                )
                _ = try daemon.stop()
                nudgedRuns.append(ours)
                say("  \(size) items, run \(run), nudged: \(ours.line)")

                let process = Process()
                process.executableURL = floor
                process.arguments = [directory + "/floor.sock", directory + "/floor.log"]
                // Its log lines (Hummingbird's "listening") beside nudged's.
                _ = FileManager.default.createFile(atPath: directory + "/floor.out", contents: nil)
                let output = FileHandle(forWritingAtPath: directory + "/floor.out")
                process.standardOutput = output
                process.standardError = output
                try process.run()
                defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
                let api = API(http: http, socket: directory + "/floor.sock")
                try await awaitListening(api, process: process)
                let theirs = try await measure(api, process: process.processIdentifier, items: size, options: options)
                floorRuns.append(theirs)
                say("  \(size) items, run \(run), floor:  \(theirs.line)")
            }
            summarize(nudged: nudgedRuns, floor: floorRuns, items: size)
        }
    }

    /// The floor's socket answers: polled, as it says nothing when ready; 30 s without an answer is a hang.
    private static func awaitListening(_ api: API, process: Process) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do {
                try await api.editDueDate(of: 1)
                return
            } catch {
                guard process.isRunning, ContinuousClock.now < deadline else {
                    throw BenchError("nudge-floor never answered: \(error)")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    private static func measure(_ api: API, process: Int32, items: Int, options: Options) async throws -> Figures {
        var figures = Figures()
        // A few edits first, so that neither server is measured while it warms up.
        for _ in 0..<20 { try await api.editDueDate(of: Int.random(in: 1...items)) }

        var one = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        let cpuBefore = cpuTime(of: process)
        for _ in 0..<options.edits {
            let elapsed = try await api.timed { try await api.editDueDate(of: Int.random(in: 1...items)) }
            _ = one.record(UInt64(elapsed / .microseconds(1)))
        }
        figures.cpuPerEdit = (cpuTime(of: process) - cpuBefore) * 1000 / Double(options.edits)
        figures.oneP50 = Double(one.valueAtPercentile(50)) / 1000
        figures.oneP99 = Double(one.valueAtPercentile(99)) / 1000

        let each = max(options.edits / 4, 1)
        let latencies = try await withThrowingTaskGroup(of: [Duration].self) { clients in
            for _ in 0..<options.clients {
                clients.addTask {
                    var taken: [Duration] = []
                    for _ in 0..<each {
                        taken.append(try await api.timed { try await api.editDueDate(of: Int.random(in: 1...items)) })
                    }
                    return taken
                }
            }
            return try await clients.reduce(into: []) { $0 += $1 }
        }
        var sixteen = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        for elapsed in latencies { _ = sixteen.record(UInt64(elapsed / .microseconds(1))) }
        figures.sixteenP50 = Double(sixteen.valueAtPercentile(50)) / 1000
        figures.sixteenP99 = Double(sixteen.valueAtPercentile(99)) / 1000
        return figures
    }

    /// Seconds of CPU the process has used, all its threads, user and system (/proc/PID/stat, fields 14 and 15).
    private static func cpuTime(of process: Int32) -> Double {
        let text = (try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8)) ?? ""
        // The command name, in parentheses, may hold spaces: the fields are counted after it.
        let fields = text.split(separator: ")").last?.split(separator: " ") ?? []
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func summarize(nudged: [Figures], floor: [Figures], items: Int) {
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        func spread(_ values: [Double]) -> String {
            let sorted = values.sorted()
            return String(format: "%.3f (%.3f–%.3f)", median(values), sorted.first!, sorted.last!)
        }
        say("== \(items) items, median (min–max) of \(nudged.count) runs: nudged, the floor, and nudged ÷ the floor")
        let rows: [(String, KeyPath<Figures, Double>, String)] = [
            ("1 client p50", \.oneP50, "ms"), ("1 client p99", \.oneP99, "ms"),
            ("16 clients p50", \.sixteenP50, "ms"), ("16 clients p99", \.sixteenP99, "ms"),
            ("CPU per edit", \.cpuPerEdit, "ms"),
        ]
        for (name, figure, unit) in rows {
            let ours = nudged.map { $0[keyPath: figure] }
            let theirs = floor.map { $0[keyPath: figure] }
            // The ratio of each run's pair, whose conditions were alike, then their median.
            let ratios = zip(ours, theirs).map { $0 / $1 }
            say(
                "   \(name.padding(toLength: 15, withPad: " ", startingAt: 0)) \(spread(ours)) \(unit)   floor "
                    + "\(spread(theirs)) \(unit)   ratio \(spread(ratios))"
            )
        }
    }
}
