import AsyncHTTPClient
import Foundation
import Histogram

/// `nudge-bench watchers`: what publishing events to watchers adds to a change. Per run, on a fresh 1,000-item
/// store: durable edit latency with one client and no watcher, then with `--watchers` clients streaming
/// `/v1/events` (each read as it comes, on one thread polling them all), and that every watcher got every event.
enum WatchersBench {
    static func run(_ options: Options, http: HTTPClient) async throws {
        say(
            "nudge-bench watchers: \(options.nudged), \(options.watchers) watchers, \(options.edits) edits, \(options.runs) runs"
        )
        let template = try StoreTemplate.prepare(items: 1_000, layout: 2, fullLog: false, in: options.work)
        var without: [(p50: Double, p99: Double)] = []
        var with: [(p50: Double, p99: Double)] = []
        for run in 1...options.runs {
            let directory = try template.freshCopy(in: options.work)
            let daemon = try RunningDaemon(nudged: options.nudged, directory: directory)
            defer { daemon.kill() }
            _ = try daemon.awaitReady()
            let socket = directory + "/nudged.sock"
            let api = API(http: http, socket: socket)
            // Warm up the connection and the daemon's code paths alike for both halves.
            for _ in 0..<100 { try await api.editDueDate(of: Int.random(in: 1...template.items)) }
            let alone = try await latency(api, edits: options.edits, items: template.items)
            let readers = try StreamReaders(socket: socket, count: options.watchers)
            defer { readers.stop() }
            while try await api.health().watchers ?? 0 < options.watchers {}
            let watched = try await latency(api, edits: options.edits, items: template.items)
            // Every watcher reads every event: the last edit's event reaches each of them.
            let expected = options.edits
            let deadline = ContinuousClock.now + .seconds(30)
            while readers.minimumEvents < expected, ContinuousClock.now < deadline { await Task.yield() }
            guard readers.minimumEvents >= expected else {
                throw BenchError("a watcher got \(readers.minimumEvents) of \(expected) events")
            }
            say(
                "  run \(run): edit p50/p99 \(format(alone.p50))/\(format(alone.p99)) ms alone, "
                    + "\(format(watched.p50))/\(format(watched.p99)) ms with \(options.watchers) watchers"
            )
            without.append(alone)
            with.append(watched)
            _ = try daemon.stop()
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let addedP50 = median(zip(with, without).map { $0.p50 - $1.p50 })
        let addedP99 = median(zip(with, without).map { $0.p99 - $1.p99 })
        say("== publishing to \(options.watchers) watchers, median of \(options.runs) runs")
        say(
            "   edit p50 alone \(format(median(without.map(\.p50)))) ms, with watchers \(format(median(with.map(\.p50)))) ms"
        )
        say(
            "   edit p99 alone \(format(median(without.map(\.p99)))) ms, with watchers \(format(median(with.map(\.p99)))) ms"
        )
        say("   added to a change: p50 \(format(addedP50)) ms, p99 \(format(addedP99)) ms")
    }

    private static func latency(_ api: API, edits: Int, items: Int) async throws -> (p50: Double, p99: Double) {
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)
        for _ in 0..<edits {
            let elapsed = try await api.timed { try await api.editDueDate(of: Int.random(in: 1...items)) }
            _ = histogram.record(UInt64(elapsed / .microseconds(1)))
        }
        return (Double(histogram.valueAtPercentile(50)) / 1000, Double(histogram.valueAtPercentile(99)) / 1000)
    }

    private static func format(_ value: Double) -> String { String(format: "%.3f", value) }
}

/// `count` connections streaming `/v1/events`, read on one thread of their own with poll(2); counts the events
/// (`id:` lines) each has read.
final class StreamReaders: @unchecked Sendable {
    private let descriptors: [Int32]
    private let lock = NSLock()
    private var counts: [Int]
    private var stopping = false
    private var thread: Thread?

    init(socket: String, count: Int) throws {
        var descriptors: [Int32] = []
        for _ in 0..<count {
            let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: socket.utf8.prefix($0.count - 1)) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard connected == 0 else { throw BenchError("cannot connect a watcher: errno \(errno)") }
            let request = "GET /v1/events HTTP/1.1\r\nHost: nudged\r\n\r\n"
            _ = request.withCString { send(fd, $0, strlen($0), 0) }
            descriptors.append(fd)
        }
        self.descriptors = descriptors
        counts = Array(repeating: 0, count: count)
        let thread = Thread { [self] in read() }
        self.thread = thread
        thread.start()
    }

    var minimumEvents: Int { lock.withLock { counts.min() ?? 0 } }

    func stop() {
        lock.withLock { stopping = true }
        for fd in descriptors { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func read() {
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        // "\nid: " split across two reads is counted once, at the read that completes it.
        var tails = Array(repeating: [UInt8](), count: descriptors.count)
        let marker = Array("\nid: ".utf8)
        while !lock.withLock({ stopping }) {
            guard poll(&polled, nfds_t(polled.count), 200) > 0 else { continue }
            for index in polled.indices where polled[index].revents != 0 {
                let count = recv(polled[index].fd, &buffer, buffer.count, 0)
                if count <= 0 {
                    polled[index].events = 0
                    continue
                }
                let bytes = tails[index] + buffer.prefix(count)
                var found = 0
                var position = 0
                while position + marker.count <= bytes.count {
                    if bytes[position..<(position + marker.count)].elementsEqual(marker) {
                        found += 1
                        position += marker.count
                    } else {
                        position += 1
                    }
                }
                tails[index] = Array(bytes.suffix(marker.count - 1))
                lock.withLock { counts[index] += found }
            }
        }
        for fd in descriptors { close(fd) }
    }
}
