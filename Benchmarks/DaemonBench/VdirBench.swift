import AsyncHTTPClient
import Foundation
import Histogram

/// `nudge-bench vdir`: a list linked to a folder of task files (issue 40). For each size, each run: a folder of that
/// many tasks (files named in item-ID order), an empty store, the release `nudged`; then how long
/// `PUT /v1/lists/{id}/link` takes to read and apply them, the resident memory it added per task (2 s after, once the
/// watcher's own reading is done), whether a `touch` of every file writes anything, and, with inotify, the latency
/// from a task file rewritten the way todoman writes it (a temporary file renamed over it, with a new due time) to
/// its item showing the new due time through the API (p50, p99; the item is read back every millisecond, so that
/// much is in the figure), the first change after the touch apart. Prints each run, then medians.
enum VdirBench {
    struct Figures {
        var link = 0.0
        var bytesPerTask = 0.0
        var commitsAfterTouch = 0
        /// The first change after the touch waits for the touch's own reading of every file.
        var firstChangeAfterTouch = 0.0
        var changeP50 = 0.0
        var changeP99 = 0.0

        var line: String {
            String(
                format: "link %.3f s, %.0f bytes a task, %d commits after touching every file, the first change after "
                    + "it %.1f ms, change to item p50 %.1f p99 %.1f ms",
                link,
                bytesPerTask,
                commitsAfterTouch,
                firstChangeAfterTouch,
                changeP50,
                changeP99
            )
        }
    }

    static func run(_ options: Options, http: HTTPClient) async throws {
        say("nudge-bench vdir: \(options.nudged), \(options.runs) runs per size, \(options.edits) file changes each")
        for size in options.sizes {
            var runs: [Figures] = []
            for run in 1...options.runs {
                let figures = try await measure(size: size, options: options, http: http)
                say("  \(size) tasks, run \(run): \(figures.line)")
                runs.append(figures)
            }
            func median(_ values: [Double]) -> String {
                let sorted = values.sorted()
                return String(format: "%.3f (%.3f–%.3f)", sorted[sorted.count / 2], sorted[0], sorted[sorted.count - 1])
            }
            say("  \(size) tasks, median (min–max) of \(runs.count) runs:")
            say("   link and read              \(median(runs.map(\.link))) s")
            say("   memory per task            \(median(runs.map(\.bytesPerTask))) bytes")
            say("   commits after touch        \(median(runs.map { Double($0.commitsAfterTouch) }))")
            say("   first change after touch   \(median(runs.map(\.firstChangeAfterTouch))) ms")
            say("   file changed → item p50    \(median(runs.map(\.changeP50))) ms")
            say("   file changed → item p99    \(median(runs.map(\.changeP99))) ms")
        }
    }

    static func task(_ index: Int, due: String) -> String {
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//nudge-bench//EN\r\nBEGIN:VTODO\r\nUID:task-\(index)\r\n"
            + "SUMMARY:task \(index)\r\nDUE:\(due)\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
    }

    static func fileName(_ index: Int) -> String { String(format: "task-%06d.ics", index) }

    static func measure(size: Int, options: Options, http: HTTPClient) async throws -> Figures {
        let directory = options.work + "/vdir-\(UUID().uuidString.prefix(8))"
        let folder = directory + "/calendars/tasks"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // nudged's socket goes beside the store, in a directory only its user may enter.
        chmod(directory, 0o700)
        defer { if getenv("NUDGE_BENCH_KEEP") == nil { try? FileManager.default.removeItem(atPath: directory) } }
        for index in 1...size {
            try task(index, due: "20300101T090000Z").write(
                toFile: folder + "/" + fileName(index),
                atomically: false,
                encoding: .utf8
            )
        }
        let daemon = try RunningDaemon(
            nudged: options.nudged,
            directory: directory,
            arguments: ["--clock", "manual:2027-01-01T00:00:00Z"]
        )
        defer { daemon.kill() }
        _ = try daemon.awaitReady()
        let api = API(http: http, socket: directory + "/nudged.sock")
        var figures = Figures()
        let list =
            try JSONSerialization.jsonObject(
                with: try await api.send("POST", "/v1/lists", body: #"{"name":"Tasks"}"#)
            ) as? [String: Any]
        let listID = list?["listID"] as? Int ?? 0
        let before = daemon.residentBytes()
        figures.link = try await api.timed {
            _ = try await api.send("PUT", "/v1/lists/\(listID)/link", body: #"{"folder":"\#(folder)"}"#)
        }.seconds
        // Settled: the watcher reads a folder it watches anew once more, after the link.
        try await Task.sleep(for: .seconds(2))
        figures.bytesPerTask = Double(daemon.residentBytes() - before) / Double(size)
        guard try await api.health().items == size else { throw BenchError("the link did not bring \(size) items") }

        let commits = try await api.health().commits ?? 0
        for index in 1...size { utime(folder + "/" + fileName(index), nil) }
        try await Task.sleep(for: .milliseconds(500))
        figures.commitsAfterTouch = (try await api.health().commits ?? 0) - commits

        /// Rewrites task `index`'s file as todoman does (a temporary file renamed over it) with a due time of its
        /// own, and returns how long its item took to show it, reading it back every millisecond.
        func change(_ index: Int, _ edit: Int) async throws -> Duration {
            let hour = String(format: "%02d", edit % 24)
            let minute = String(format: "%02d", edit % 60)
            let due = "2031\(String(format: "%02d", edit % 12 + 1))15T\(hour)\(minute)00Z"
            let expected = "2031-\(String(format: "%02d", edit % 12 + 1))-15T\(hour):\(minute):00"
            let temporary = folder + "/.\(fileName(index)).tmp"
            try task(index, due: due).write(toFile: temporary, atomically: false, encoding: .utf8)
            let started = ContinuousClock.now
            guard rename(temporary, folder + "/" + fileName(index)) == 0 else { throw BenchError("rename: \(errno)") }
            while true {
                let item = try JSONSerialization.jsonObject(with: try await api.send("GET", "/v1/items/\(index)"))
                if ((item as? [String: Any])?["dueDate"] as? String)?.hasPrefix(expected) == true { break }
                guard started.duration(to: .now) < .seconds(60) else {
                    throw BenchError("item \(index) never showed the due time \(expected)")
                }
                try await Task.sleep(for: .milliseconds(1))
            }
            return started.duration(to: .now)
        }
        // Items are numbered in file-name order from 1 in an empty store.
        figures.firstChangeAfterTouch = try await change(1, 0).seconds * 1000
        var latency = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        for edit in 1...options.edits {
            latency.record(UInt64(try await change(Int.random(in: 1...size), edit).seconds * 1_000_000))
        }
        figures.changeP50 = Double(latency.valueAtPercentile(50)) / 1000
        figures.changeP99 = Double(latency.valueAtPercentile(99)) / 1000
        _ = try daemon.stop()
        return figures
    }
}
