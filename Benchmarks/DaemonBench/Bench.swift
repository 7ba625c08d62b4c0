import AsyncHTTPClient
import Foundation
import Histogram
import NIOCore
import NudgeCore
import NudgeStore

/// `nudge-bench store`: the whole daemon's figures on stores of given sizes. For each size it builds a store once
/// (cached under the work directory), then for each run copies it, starts the release `nudged` on the copy under a
/// notify socket of its own, and measures: start-up to READY=1, durable edit latency with one client (p50, p99),
/// throughput of 16 clients editing and adding (with the log flushes per acknowledged change), memory, and the
/// clean stop (which compacts). Each figure is printed as the median of the runs with their min and max.
@main struct Bench {
    /// A bad argument or a failed run prints its sentence and exits: 64 for usage, 1 otherwise.
    static func main() async {
        do {
            try await benchmark(Options(CommandLine.arguments.dropFirst()))
        } catch let error as BenchError {
            FileHandle.standardError.write(Data("nudge-bench: \(error)\n".utf8))
            exit(error.description.hasPrefix("usage:") ? 64 : 1)
        } catch {
            FileHandle.standardError.write(Data("nudge-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func benchmark(_ options: Options) async throws {
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(
                connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
            )
        )
        do {
            if options.mode == "watchers" {
                try await WatchersBench.run(options, http: http)
            } else if options.mode == "firing" {
                try await FiringBench.run(options, http: http)
            } else if options.mode == "calendar" {
                try await CalendarBench.run(options)
            } else if options.mode == "edit-floor" {
                try await EditFloorBench.run(options, http: http)
            } else if options.mode == "vdir" {
                try await VdirBench.run(options, http: http)
            } else {
                try await run(options, http: http)
            }
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    static func run(_ options: Options, http: HTTPClient) async throws {
        say(
            "nudge-bench store: \(options.nudged), layout \(options.layout)"
                + (options.fullLog ? " with a full change log" : "") + ", \(options.runs) runs per size"
        )
        for size in options.sizes {
            let template = try StoreTemplate.prepare(
                items: size,
                layout: options.layout,
                fullLog: options.fullLog,
                in: options.work
            )
            var runs: [RunFigures] = []
            for run in 1...options.runs {
                let figures = try await measure(template, run: run, options: options, http: http)
                say("  \(size) items, run \(run): \(figures.line)")
                runs.append(figures)
            }
            RunFigures.summarize(runs, items: size)
        }
    }

    static func measure(_ template: StoreTemplate, run: Int, options: Options, http: HTTPClient) async throws
        -> RunFigures
    {
        let directory = try template.freshCopy(in: options.work)
        let daemon = try RunningDaemon(nudged: options.nudged, directory: directory)
        defer { daemon.kill() }
        let api = API(http: http, socket: directory + "/nudged.sock")
        var figures = RunFigures()
        figures.startup = try daemon.awaitReady()
        figures.rssAfterStart = daemon.residentBytes()

        // One client, one edit at a time: what a durable edit costs.
        var latency = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        for _ in 0..<options.edits {
            let elapsed = try await api.timed { try await api.editDueDate(of: Int.random(in: 1...template.items)) }
            _ = latency.record(UInt64(elapsed / .microseconds(1)))
        }
        figures.p50 = Double(latency.valueAtPercentile(50)) / 1000
        figures.p99 = Double(latency.valueAtPercentile(99)) / 1000

        // 16 clients, half edits, half new items: what group commit sustains.
        let before = try await api.health()
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { clients in
            for _ in 0..<options.clients {
                clients.addTask {
                    for operation in 0..<options.operationsPerClient {
                        if operation.isMultiple(of: 2) {
                            try await api.editDueDate(of: Int.random(in: 1...template.items))
                        } else {
                            try await api.addItem()
                        }
                    }
                }
            }
            try await clients.waitForAll()
        }
        let elapsed = started.duration(to: .now)
        let after = try await api.health()
        let operations = options.clients * options.operationsPerClient
        figures.throughput = Double(operations) / elapsed.seconds
        if let syncs = after.syncs, let synced = before.syncs, let commits = after.commits,
            let committed = before.commits
        {
            figures.syncsPerChange = Double(syncs - synced) / Double(commits - committed)
        } else {
            figures.syncsPerChange = .nan  // An older nudged does not count them.
        }
        figures.rssAfterLoad = daemon.residentBytes()
        figures.peakRSS = daemon.peakResidentBytes()
        (figures.stop, figures.peakRSSWithCompaction) = try daemon.stop()
        return figures
    }
}

struct Options {
    /// `store`, `watchers`, `firing`, `calendar`, `edit-floor` or `vdir`.
    var mode = "store"
    var nudged = ".build/release/nudged"
    var sizes = [1_000, 100_000, 1_000_000]
    var runs = 3
    var layout = StoreSchema.currentVersion
    /// Start each run on a snapshot and a change log as full as it gets before a compaction.
    var fullLog = false
    var work = ".build/bench"
    var edits = 200
    var clients = 16
    var operationsPerClient = 250
    var watchers = 100
    var burst = 10_000

    init(_ arguments: ArraySlice<String>) throws {
        var arguments = arguments
        guard let mode = arguments.popFirst(),
            ["store", "watchers", "firing", "calendar", "edit-floor", "vdir"].contains(mode)
        else {
            throw usage
        }
        self.mode = mode
        if mode == "watchers" { edits = 1000 }
        if mode == "firing" { sizes = [1_000_000] }
        if mode == "calendar" { sizes = [100_000] }
        if mode == "edit-floor" { (sizes, runs, edits) = ([1_000, 1_000_000], 5, 400) }
        if mode == "vdir" { (sizes, runs, edits) = ([1_000, 10_000], 3, 100) }
        while let flag = arguments.popFirst() {
            if flag == "--full-log" {
                fullLog = true
                continue
            }
            guard let value = arguments.popFirst() else { throw usage }
            switch flag {
            case "--nudged": nudged = value
            case "--sizes": sizes = value.split(separator: ",").compactMap { Int($0) }
            case "--runs": runs = Int(value) ?? runs
            case "--layout": layout = Int(value) ?? layout
            case "--work": work = value
            case "--edits": edits = Int(value) ?? edits
            case "--operations": operationsPerClient = Int(value) ?? operationsPerClient
            case "--watchers": watchers = Int(value) ?? watchers
            case "--items": sizes = [Int(value) ?? 1_000_000]
            case "--burst": burst = Int(value) ?? burst
            default: throw usage
            }
        }
        // The notify socket's path goes in NOTIFY_SOCKET, which must be absolute.
        if !work.hasPrefix("/") { work = FileManager.default.currentDirectoryPath + "/" + work }
    }

    private var usage: BenchError {
        BenchError(
            "usage: nudge-bench store [--nudged PATH] [--sizes 1000,100000] [--runs N] [--layout 1|2] [--work DIR] "
                + "[--edits N] [--operations N] [--full-log]\n"
                + "       nudge-bench watchers [--nudged PATH] [--watchers N] [--edits N] [--runs N] [--work DIR]\n"
                + "       nudge-bench firing [--nudged PATH] [--items N] [--burst N] [--work DIR]\n"
                + "       nudge-bench calendar [--nudged PATH] [--items N] [--runs N] [--work DIR]\n"
                + "       nudge-bench edit-floor [--nudged PATH] [--sizes 1000,1000000] [--runs N] [--edits N] "
                + "[--work DIR]\n"
                + "       nudge-bench vdir [--nudged PATH] [--sizes 1000,10000] [--runs N] [--edits N] [--work DIR]"
        )
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
