import CLinux
import CSystemd
import Glibc
import NudgeSystem
import Synchronization
import SystemPackage

/// The session bus, through libsystemd's sd-bus, owned by one thread of its own ("nudge-dbus"): sd-bus objects are
/// not thread-safe, and a thread blocked in `poll` on the bus and a wake-up eventfd costs nothing while nothing
/// happens, where a child process per call (notify-send, gdbus) made the daemon wake every second. Calls are
/// asynchronous on the bus, each bounded by its own timeout, so a server that never answers costs a caller that
/// long and blocks nothing else. The connection opens with the first call and again after it is lost; the signals
/// of the notification interface (and a change of the server's owner) come out of `signals`.
public final class NotificationBus: Sendable {
    public static let destination = "org.freedesktop.Notifications"
    public static let path = "/org/freedesktop/Notifications"

    public let signals: AsyncStream<NotificationSignal>
    private let signalSink: SignalSink
    /// Work for the bus thread, run in order; each gets the connection, or nil and why there is none.
    private let jobs = Mutex<[@Sendable (OpaquePointer?, BusError?) -> Void]>([])
    private let threadStarted = Atomic<Bool>(false)
    private let wakeFD: Int32

    public init() {
        let (signals, continuation) = AsyncStream.makeStream(
            of: NotificationSignal.self,
            bufferingPolicy: .bufferingNewest(10_000)
        )
        self.signals = signals
        signalSink = SignalSink(continuation)
        do {
            wakeFD = try SystemCall.valueOrErrno { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
        } catch {
            // Without it the bus thread could not be woken, and every call would wait for ever.
            preconditionFailure("eventfd failed: \(error)")
        }
    }

    /// Calls `member` of `interface` on `destination` and reads the reply with `read`, on the bus thread; with the
    /// server epoch the reply came in (`NotificationSignal.serverChanged`): the changes the bus thread had seen
    /// before it.
    public func call<Reply: Sendable>(
        destination: String = NotificationBus.destination,
        path: String = NotificationBus.path,
        interface: String = NotificationBus.destination,
        _ member: String,
        _ arguments: [BusValue] = [],
        timeout: Duration = DesktopSink.timeout,
        read: @escaping @Sendable (OpaquePointer) throws(BusError) -> Reply
    ) async throws(BusError) -> (reply: Reply, epoch: Int) {
        let result: Result<(reply: Reply, epoch: Int), BusError> = await withCheckedContinuation { continuation in
            submit { [signalSink] bus, failure in
                guard let bus else {
                    continuation.resume(returning: .failure(failure!))
                    return
                }
                let reply = ReplyHandler { message in
                    guard let message else {
                        continuation.resume(
                            returning: .failure(
                                BusError(
                                    name: "nudge.Disconnected",
                                    message: "the connection to the session bus closed"
                                )
                            )
                        )
                        return
                    }
                    let epoch = signalSink.epoch.load(ordering: .relaxed)
                    continuation.resume(returning: Self.result(of: message, read).map { ($0, epoch) })
                }
                if let failure = Self.send(
                    bus,
                    destination: destination,
                    path: path,
                    interface: interface,
                    member: member,
                    arguments: arguments,
                    timeout: timeout,
                    reply: reply
                ) {
                    continuation.resume(returning: .failure(failure))
                }
            }
        }
        return try result.get()
    }

    // MARK: Reading replies

    public static func readUInt32(_ message: OpaquePointer) throws(BusError) -> UInt32 {
        var value: UInt32 = 0
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &value), "reading a uint32")
        return value
    }

    public static func readString(_ message: OpaquePointer) throws(BusError) -> String {
        var value: UnsafePointer<CChar>?
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &value), "reading a string")
        return value.map { String(cString: $0) } ?? ""
    }

    public static func readStrings(_ message: OpaquePointer) throws(BusError) -> [String] {
        try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "s"), "reading an array")
        var strings: [String] = []
        while true {
            var value: UnsafePointer<CChar>?
            let read = sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &value)
            try check(read, "reading a string of an array")
            guard read > 0, let value else { break }
            strings.append(String(cString: value))
        }
        try check(sd_bus_message_exit_container(message), "reading an array")
        return strings
    }

    private static func check(_ result: Int32, _ doing: String) throws(BusError) {
        guard result < 0 else { return }
        throw BusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "\(doing): \(errnoText(-result))")
    }

    static func errnoText(_ code: Int32) -> String { String(cString: strerror(code)) }

    // MARK: The bus thread

    private func submit(_ job: @escaping @Sendable (OpaquePointer?, BusError?) -> Void) {
        jobs.withLock { $0.append(job) }
        if !threadStarted.exchange(true, ordering: .acquiringAndReleasing) {
            startThread(named: "nudge-dbus") { [self] in serve() }
        }
        // Only a closed or bad descriptor could refuse, and this one is open for the bus's life.
        try? SystemCall.signalEvent(FileDescriptor(rawValue: wakeFD))
    }

    /// The thread's life: run what was submitted, let sd-bus process what came and went, and sleep in `poll` until
    /// the bus or a submission needs it, or a call's timeout comes.
    private func serve() {
        var bus: OpaquePointer?
        var lastFailure = BusError(name: "nudge.NoConnection", message: "")
        while true {
            let work = jobs.withLock { jobs in
                defer { jobs.removeAll() }
                return jobs
            }
            // What came while asleep first: a connection found closed is opened again for the work.
            if let connected = bus, !process(connected) { bus = disconnect(connected) }
            if !work.isEmpty && bus == nil {
                switch connect() {
                case .success(let connected): bus = connected
                case .failure(let failure): lastFailure = failure
                }
            }
            for job in work { job(bus, bus == nil ? lastFailure : nil) }
            if let connected = bus, !process(connected) { bus = disconnect(connected) }
            var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            var timeout: Int32 = -1
            if let connected = bus {
                let events = sd_bus_get_events(connected)
                fds.append(pollfd(fd: sd_bus_get_fd(connected), events: Int16(max(events, 0)), revents: 0))
                var deadline: UInt64 = 0
                if sd_bus_get_timeout(connected, &deadline) >= 0, deadline != UInt64.max {
                    let nowMicroseconds = SystemCall.monotonicMicroseconds()
                    timeout =
                        deadline <= nowMicroseconds ? 0 : Int32(min((deadline - nowMicroseconds + 999) / 1_000, 60_000))
                }
            }
            // Interrupted, it answers 0 and the loop looks again; it cannot fail on two open descriptors otherwise.
            _ = try? SystemCall.poll(&fds, milliseconds: timeout)
            if fds[0].revents & Int16(POLLIN) != 0 {
                _ = try? SystemCall.takeEvents(FileDescriptor(rawValue: wakeFD))
            }
        }
    }

    /// Frees a connection that is gone: calls still waiting on it are answered with an error (their slots' destroy
    /// callbacks), and what the server showed is void.
    private func disconnect(_ bus: OpaquePointer) -> OpaquePointer? {
        _ = sd_bus_flush_close_unref(bus)
        let epoch = signalSink.epoch.add(1, ordering: .relaxed).newValue
        signalSink.continuation.yield(.serverChanged(epoch: epoch))
        return nil
    }

    /// Lets sd-bus handle everything pending; false once the connection is gone.
    private func process(_ bus: OpaquePointer) -> Bool {
        while true {
            let result = sd_bus_process(bus, nil)
            if result < 0 { return false }
            if result == 0 { return true }
        }
    }

    private func connect() -> Result<OpaquePointer, BusError> {
        var bus: OpaquePointer?
        let opened = sd_bus_open_user(&bus)
        guard opened >= 0, let bus else {
            return .failure(
                BusError(
                    name: "nudge.NoConnection",
                    message: "cannot connect to the session bus: \(Self.errnoText(-opened))"
                )
            )
        }
        let userdata = Unmanaged.passUnretained(signalSink).toOpaque()
        let matches = [
            "type='signal',path='\(Self.path)',interface='\(Self.destination)',member='ActionInvoked'",
            "type='signal',path='\(Self.path)',interface='\(Self.destination)',member='NotificationClosed'",
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.destination)'",
        ]
        for match in matches {
            // Floating slots, owned by the connection. Asynchronous: the bus daemon's answer is not waited for.
            let added = sd_bus_add_match_async(bus, nil, match, SignalSink.handle, nil, userdata)
            if added < 0 {
                _ = sd_bus_flush_close_unref(bus)
                return .failure(
                    BusError(
                        name: "nudge.NoConnection",
                        message: "cannot listen on the session bus: \(Self.errnoText(-added))"
                    )
                )
            }
        }
        return .success(bus)
    }

    /// Builds and sends one call; nil once it is on its way (`reply` then hears the answer, or the error sd-bus makes
    /// of a timeout or a lost connection), else what went wrong.
    private static func send(
        _ bus: OpaquePointer,
        destination: String,
        path: String,
        interface: String,
        member: String,
        arguments: [BusValue],
        timeout: Duration,
        reply: ReplyHandler
    ) -> BusError? {
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else {
            return BusError(name: "nudge.CallFailed", message: "cannot make the call \(member): \(errnoText(-result))")
        }
        defer { _ = sd_bus_message_unref(message) }
        for argument in arguments {
            result = append(argument, to: message)
            if result < 0 {
                return BusError(
                    name: "nudge.CallFailed",
                    message: "cannot make the call \(member): \(errnoText(-result))"
                )
            }
        }
        let userdata = Unmanaged.passRetained(reply).toOpaque()
        let microseconds =
            UInt64(timeout.components.seconds) * 1_000_000
            + UInt64(timeout.components.attoseconds / 1_000_000_000_000)
        var slot: OpaquePointer?
        result = sd_bus_call_async(bus, &slot, message, ReplyHandler.handle, userdata, microseconds)
        guard result >= 0, let slot else {
            Unmanaged<ReplyHandler>.fromOpaque(userdata).release()
            return BusError(name: "nudge.CallFailed", message: "cannot send the call \(member): \(errnoText(-result))")
        }
        // The slot releases the handler when it goes: after the reply, or with the connection if none came, so no
        // caller waits for ever. Floating: the connection owns it from here.
        _ = sd_bus_slot_set_destroy_callback(slot, ReplyHandler.destroy)
        _ = sd_bus_slot_set_floating(slot, 1)
        return nil
    }

    private static func append(_ value: BusValue, to message: OpaquePointer) -> Int32 {
        func basic(_ type: Character, _ pointer: UnsafeRawPointer) -> Int32 {
            sd_bus_message_append_basic(message, CChar(type.asciiValue!), pointer)
        }
        func string(_ text: String) -> Int32 {
            busString(text).withCString { basic("s", $0) }
        }
        switch value {
        case .string(let text):
            return string(text)
        case .uint32(var number):
            return basic("u", &number)
        case .int32(var number):
            return basic("i", &number)
        case .strings(let texts):
            var result = sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "s")
            for text in texts where result >= 0 { result = string(text) }
            return result < 0 ? result : sd_bus_message_close_container(message)
        case .byteHints(let hints):
            var result = sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{sv}")
            for (key, var byte) in hints.sorted(by: { $0.key < $1.key }) where result >= 0 {
                result = sd_bus_message_open_container(message, CChar(UInt8(ascii: "e")), "sv")
                if result >= 0 { result = string(key) }
                if result >= 0 { result = sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), "y") }
                if result >= 0 { result = basic("y", &byte) }
                if result >= 0 { result = sd_bus_message_close_container(message) }
                if result >= 0 { result = sd_bus_message_close_container(message) }
            }
            return result < 0 ? result : sd_bus_message_close_container(message)
        }
    }

    /// D-Bus strings hold no NUL (`showingNUL`), and sd-bus refuses Unicode's noncharacters (U+FDD0 to U+FDEF, and
    /// U+xFFFE and U+xFFFF), which show as U+FFFD.
    static func busString(_ text: String) -> String {
        let text = text.showingNUL
        guard text.unicodeScalars.contains(where: isNoncharacter) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isNoncharacter($0) ? "\u{FFFD}" : $0 }))
    }

    private static func isNoncharacter(_ scalar: Unicode.Scalar) -> Bool {
        (0xFDD0...0xFDEF).contains(scalar.value) || scalar.value & 0xFFFE == 0xFFFE
    }

    private static func result<Reply>(
        of message: OpaquePointer,
        _ read: (OpaquePointer) throws(BusError) -> Reply
    ) -> Result<Reply, BusError> {
        if sd_bus_message_is_method_error(message, nil) > 0 {
            let error = sd_bus_message_get_error(message)?.pointee
            return .failure(
                BusError(
                    name: error?.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed",
                    message: error?.message.map { String(cString: $0) } ?? ""
                )
            )
        }
        do throws(BusError) {
            return .success(try read(message))
        } catch {
            return .failure(error)
        }
    }
}

/// What to do with a call's reply: `received` runs once, with the reply (or the error sd-bus makes of a timeout), or
/// with nil when the connection went before either. Lives as long as the call's slot, on the bus thread.
private final class ReplyHandler {
    private var received: ((OpaquePointer?) -> Void)?

    init(_ received: @escaping (OpaquePointer?) -> Void) {
        self.received = received
    }

    private func receive(_ message: OpaquePointer?) {
        let received = self.received
        self.received = nil
        received?(message)
    }

    static let handle: sd_bus_message_handler_t = { message, userdata, _ in
        guard let userdata, let message else { return 0 }
        Unmanaged<ReplyHandler>.fromOpaque(userdata).takeUnretainedValue().receive(message)
        return 0
    }

    /// The slot is gone: the reply came, or never will.
    static let destroy: sd_bus_destroy_t = { userdata in
        guard let userdata else { return }
        Unmanaged<ReplyHandler>.fromOpaque(userdata).takeRetainedValue().receive(nil)
    }
}

/// Turns the notification interface's signals into `NotificationSignal`s.
private final class SignalSink: Sendable {
    let continuation: AsyncStream<NotificationSignal>.Continuation
    /// How many times the server changed, as the bus thread saw it (written there only).
    let epoch = Atomic<Int>(0)

    init(_ continuation: AsyncStream<NotificationSignal>.Continuation) {
        self.continuation = continuation
    }

    static let handle: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        let sink = Unmanaged<SignalSink>.fromOpaque(userdata).takeUnretainedValue()
        if let signal = try? sink.signal(message) { sink.continuation.yield(signal) }
        return 0
    }

    private func signal(_ message: OpaquePointer) throws(BusError) -> NotificationSignal? {
        switch sd_bus_message_get_member(message).map({ String(cString: $0) }) {
        case "ActionInvoked":
            let notificationID = try NotificationBus.readUInt32(message)
            return .actionInvoked(notificationID: notificationID, action: try NotificationBus.readString(message))
        case "NotificationClosed":
            let notificationID = try NotificationBus.readUInt32(message)
            return .closed(notificationID: notificationID, reason: try NotificationBus.readUInt32(message))
        case "NameOwnerChanged":
            // Name, old owner, new owner. A server appearing where none was (D-Bus activation by nudge's first call)
            // had nothing on screen to forget.
            _ = try NotificationBus.readString(message)
            guard try !NotificationBus.readString(message).isEmpty else { return nil }
            return .serverChanged(epoch: epoch.add(1, ordering: .relaxed).newValue)
        default:
            return nil
        }
    }
}

extension NotificationBus: NotificationServer {
    public func capabilities() async throws(BusError) -> (Set<String>, epoch: Int) {
        let (strings, epoch) = try await call(
            "GetCapabilities",
            read: Self.readStrings
        )
        return (Set(strings), epoch)
    }

    /// The bus's ID and the unique name that owns the notification service now ("none" while nothing does): a
    /// server that restarted, or a bus that did, has another.
    public func identity() async throws(BusError) -> String {
        let bus = "org.freedesktop.DBus"
        let busID = try await call(
            destination: bus,
            path: "/org/freedesktop/DBus",
            interface: bus,
            "GetId",
            read: Self.readString
        ).reply
        do {
            let owner = try await call(
                destination: bus,
                path: "/org/freedesktop/DBus",
                interface: bus,
                "GetNameOwner",
                [.string(Self.destination)],
                read: Self.readString
            ).reply
            return "\(busID) \(owner)"
        } catch  where error.name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            return "\(busID) none"
        }
    }

    public func notify(_ notification: DesktopNotification) async throws(BusError) -> (UInt32, epoch: Int) {
        try await call(
            "Notify",
            [
                .string("nudge"), .uint32(notification.replacesID), .string(""), .string(notification.summary),
                .string(notification.body), .strings(notification.actions),
                .byteHints(["urgency": notification.urgency]), .int32(0),
            ],
            read: Self.readUInt32
        )
    }

    public func close(_ notificationID: UInt32) async throws(BusError) {
        _ = try await call("CloseNotification", [.uint32(notificationID)]) { _ in () }
    }
}
