import Foundation

/// What one run measured.
struct RunFigures {
    var startup: Duration = .zero
    var p50 = 0.0
    var p99 = 0.0
    var throughput = 0.0
    var syncsPerChange = 0.0
    var rssAfterStart = 0
    var rssAfterLoad = 0
    var peakRSS = 0
    /// Peak RSS up to the exit, the compaction of a clean stop included.
    var peakRSSWithCompaction = 0
    var stop: Duration = .zero

    var line: String {
        "start \(format(startup.seconds, "s")), edit p50 \(format(p50, "ms")) p99 \(format(p99, "ms")), "
            + "16 clients \(Int(throughput))/s with \(format(syncsPerChange, "")) syncs per change, RSS "
            + "\(rssAfterStart >> 20)/\(rssAfterLoad >> 20) MiB (peak \(peakRSS >> 20), with the stop's compaction "
            + "\(peakRSSWithCompaction >> 20)), stop \(format(stop.seconds, "s"))"
    }

    /// Median (min – max) of each figure over the runs.
    static func summarize(_ runs: [RunFigures], items: Int) {
        func spread(_ values: [Double], _ unit: String, _ digits: Int = 2) -> String {
            let sorted = values.sorted()
            let median = sorted[sorted.count / 2]
            let number = { (value: Double) in String(format: "%.\(digits)f", value) }
            return "\(number(median)) \(unit) (\(number(sorted.first!))–\(number(sorted.last!)))"
        }
        say("== \(items) items, median (min–max) of \(runs.count) runs")
        say("   start-up to READY=1      \(spread(runs.map(\.startup.seconds), "s"))")
        say("   durable edit p50         \(spread(runs.map(\.p50), "ms"))")
        say("   durable edit p99         \(spread(runs.map(\.p99), "ms"))")
        say("   16 clients               \(spread(runs.map(\.throughput), "changes/s", 0))")
        say("   log flushes per change   \(spread(runs.map(\.syncsPerChange), "", 3))")
        say("   RSS after start          \(spread(runs.map { Double($0.rssAfterStart) / 1_048_576 }, "MiB", 0))")
        say("   RSS after load           \(spread(runs.map { Double($0.rssAfterLoad) / 1_048_576 }, "MiB", 0))")
        say("   peak RSS                 \(spread(runs.map { Double($0.peakRSS) / 1_048_576 }, "MiB", 0))")
        let perItem = runs.map { Double($0.peakRSS) / Double(max(items, 1)) }
        say("   peak RSS per item        \(spread(perItem, "bytes", 0))")
        let compacting = runs.map { Double($0.peakRSSWithCompaction) / 1_048_576 }
        say("   peak RSS, stop compacting \(spread(compacting, "MiB", 0))")
        say("   clean stop (compacts)    \(spread(runs.map(\.stop.seconds), "s"))")
    }
}

private func format(_ value: Double, _ unit: String) -> String {
    String(format: "%.2f", value) + (unit.isEmpty ? "" : " " + unit)
}

/// A line on stdout at once, also into a pipe: each figure shows as soon as it is measured.
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}
