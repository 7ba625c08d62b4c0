import Foundation
import Logging
import NudgeCore
import NudgeSinks
import ServiceLifecycle

/// Hears what the user does with the desktop sink's notifications (Done, Snooze, closing one) and has the service
/// record it, until nudged stops. A service in the group, so it ends with the others.
struct NotificationListener: Service {
    let desktop: DesktopSink
    let service: ReminderService
    let snoozeLength: TimeInterval
    let logger: Logger
    /// What reads a linked folder again when a Done finds its task file changed there.
    var folders: FolderWatcher? = nil

    /// What the user did with a reminder's notification (it showed the reminder due at `due`): Done, Snooze (for
    /// `snoozeLength`), or closing it. Durable before it returns; an item gone since is only logged.
    private func record(_ response: NotificationResponse, itemID: Int, due: Date) async {
        do {
            // Done on a task of a linked folder is written to its file first, as `nudge done` is.
            let inFile: TaskFileChange? = try await service.write { [snoozeLength] book in
                if response == .done, book.isKeptInFolder(itemID) {
                    return (try book.fileChange(editing: itemID, ItemEdit(checked: true)), .init())
                }
                let ((), outcome) = try book.recordingChange { book in
                    ((), try book.respond(to: response, itemID: itemID, due: due, snoozeLength: snoozeLength))
                }
                return (nil, outcome)
            }
            if let inFile {
                try await service.write(inFile, folders: folders, source: .notification) { _, _ in }
            }
        } catch {
            logger.warning("the notification's \(response.rawValue) for item \(itemID) changed nothing: \(error)")
        }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown { [self] in
            await desktop.listen { itemID, due, response in
                await record(response, itemID: itemID, due: due)
            }
        }
    }
}
