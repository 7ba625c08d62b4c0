import CSystemd
import Foundation
import Logging
import NudgeCore
import NudgeSystem
import Synchronization
import SystemPackage

/// Writes every decision of the scheduler to the systemd journal as one structured entry (see `JournalEntry`), by
/// `sd_journal_sendv`. Sends run on a thread of the sink's own (a `BlockingWorker`), so a stalled journald delays no
/// other sink and no request. With no journald, entries go to stderr instead, and the sink says so once.
public final class JournalSink: ReminderSink {
    public let name = "journal"
    /// Where journald listens; libsystemd always sends here.
    public static let socketPath = "/run/systemd/journal/socket"

    private let logger: Logger
    private let toldUnavailable = Atomic<Bool>(false)
    private let failing = Atomic<Bool>(false)
    private let sender = BlockingWorker(named: "nudged-journal")

    public init(logger: Logger) {
        self.logger = logger
        if !FileManager.default.fileExists(atPath: Self.socketPath) {
            tellUnavailable("there is no journald socket at \(Self.socketPath)")
        }
    }

    /// A fired reminder reaches the journal as its `fired` entry, through `observe`.
    public func deliver(_ delivery: Delivery) async {}

    /// A digest reaches the journal as its `digest` entry, through `observe`: one a delivery.
    public func deliver(digest: DigestDelivery) async {}

    public func observe(_ event: ReminderEvent) async {
        let entry = JournalEntry(event)
        if let invalid = entry.invalidFieldName {
            logger.error("not journaling \(event.kind.rawValue) item \(event.itemID): invalid field name \(invalid)")
            return
        }
        // libsystemd reports success when journald's socket is missing ("fail silently"), so look first.
        guard FileManager.default.fileExists(atPath: Self.socketPath) else {
            tellUnavailable("there is no journald socket at \(Self.socketPath)")
            logInstead(event)
            return
        }
        switch await sender.run({ Self.send(entry) }) {
        case .success:
            if failing.exchange(false, ordering: .relaxed) { logger.notice("journal entries are being written again") }
        case .failure(let errno):
            // The first failure of a run is logged; the ones after it would say the same until a send succeeds.
            if !failing.exchange(true, ordering: .relaxed) {
                logger.error(
                    "sd_journal_sendv failed for \(event.kind.rawValue) item \(event.itemID): \(errno) (errno \(errno.rawValue)); entries go to stderr until it works again"
                )
            }
            logInstead(event)
        }
    }

    private func logInstead(_ event: ReminderEvent) {
        logger.notice(
            "\(event.kind.rawValue): \(event.text)",
            metadata: ["item": "\(event.itemID)", "list": "\(event.listName)", "due": "\(event.due)"]
        )
    }

    private func tellUnavailable(_ reason: String) {
        guard !toldUnavailable.exchange(true, ordering: .relaxed) else { return }
        logger.warning("the journal is unavailable (\(reason)); reminders and events are logged to stderr instead")
    }

    /// One `sd_journal_sendv` call: each field is one `NAME=value` iovec. libsystemd frames a value holding a newline
    /// with its length, so the value's bytes can never be read as another field.
    static func send(_ entry: JournalEntry) -> Result<Void, Errno> {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in entry.fields {
            let start = bytes.count
            bytes += field.name.utf8
            bytes.append(UInt8(ascii: "="))
            bytes += field.value.utf8
            ranges.append(start..<bytes.count)
        }
        let result = bytes.withUnsafeMutableBytes { buffer in
            let iovecs = ranges.map { iovec(iov_base: buffer.baseAddress! + $0.lowerBound, iov_len: $0.count) }
            return sd_journal_sendv(iovecs, Int32(iovecs.count))
        }
        return result < 0 ? .failure(Errno(rawValue: -result)) : .success(())
    }
}
