import Foundation
import NudgeCore
import NudgeSinks
import ServiceLifecycle

/// Hears what the user does with the desktop sink's notifications (Done, Snooze, closing one) and has the service
/// record it, until nudged stops. A service in the group, so it ends with the others.
struct NotificationListener: Service {
    let desktop: DesktopSink
    let service: ReminderService
    let snoozeLength: TimeInterval

    func run() async throws {
        await cancelWhenGracefulShutdown { [desktop, service, snoozeLength] in
            await desktop.listen { itemID, due, response in
                await service.respond(to: response, itemID: itemID, due: due, snoozeLength: snoozeLength)
            }
        }
    }
}
