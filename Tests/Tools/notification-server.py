#!/usr/bin/python3
"""A scriptable, recording org.freedesktop.Notifications server (spec 1.2) for nudge's integration tests.

Tests run it on a private bus to give nudged a notification server with chosen capabilities, record every call
nudged makes to it, and drive it through the control interface org.nudge.TestServer on the same object:

    InvokeAction(u id, s key)   emit ActionInvoked(id, key); an error unless id is shown and key is one of its actions
    Close(u id, u reason)       remove a shown notification and emit NotificationClosed(id, reason) (1 expired,
                                2 dismissed by the user); an error unless id is shown
    Hang(b hang)                while true, Notify, CloseNotification and GetCapabilities are recorded but neither
                                acted on nor answered; false answers new calls again (hung ones stay unanswered)
    Shown() -> a(uss)           the shown notifications: id, summary, body

    busctl --address=ADDRESS call org.freedesktop.Notifications /org/freedesktop/Notifications \
        org.nudge.TestServer InvokeAction us 1 default

It prints "ready" once it owns org.freedesktop.Notifications, and exits on SIGTERM, SIGINT or the bus going away.
It needs Debian's python3-dbus and python3-gi, hence /usr/bin/python3 rather than whatever python3 is on PATH.
"""
import argparse
import json
import signal
import sys

import dbus
import dbus.bus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
CONTROL = "org.nudge.TestServer"
CLOSED_BY_CALL = 3


class UnknownNotification(dbus.exceptions.DBusException):
    _dbus_error_name = CONTROL + ".Error.UnknownNotification"


def plain(value):
    """dbus-python's types as plain JSON values: booleans, numbers (bytes too), strings, lists and objects."""
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (bytes, bytearray)):
        return list(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    return [plain(item) for item in value]


class Server(dbus.service.Object):
    def __init__(self, connection, capabilities, record):
        super().__init__(connection, PATH)
        self.capabilities = capabilities
        self.record_file = record
        self.shown = {}  # id -> (sender, actions, summary, body)
        self.last_id = 0
        self.hanging = False

    def record(self, member, sender, args):
        if self.record_file:
            line = json.dumps({"member": member, "sender": str(sender), "args": plain(args)})
            self.record_file.write(line + "\n")
            self.record_file.flush()

    # org.freedesktop.Notifications

    @dbus.service.method(NAME, in_signature="", out_signature="as", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def GetCapabilities(self, sender, reply, error):
        self.record("GetCapabilities", sender, [])
        if not self.hanging:
            reply(dbus.Array(self.capabilities, signature="s"))

    @dbus.service.method(NAME, in_signature="", out_signature="ssss", sender_keyword="sender")
    def GetServerInformation(self, sender):
        self.record("GetServerInformation", sender, [])
        return ("nudge-test-server", "nudge", "1", "1.2")

    @dbus.service.method(NAME, in_signature="susssasa{sv}i", out_signature="u", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout, sender,
               reply, error):
        self.record("Notify", sender,
                    [app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout])
        if self.hanging:
            return
        if replaces_id not in self.shown:
            self.last_id += 1
            replaces_id = self.last_id
        self.shown[replaces_id] = (str(sender), [str(action) for action in actions], str(summary), str(body))
        reply(dbus.UInt32(replaces_id))

    @dbus.service.method(NAME, in_signature="u", out_signature="", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def CloseNotification(self, id, sender, reply, error):
        self.record("CloseNotification", sender, [id])
        if self.hanging:
            return
        if self.shown.pop(id, None) is not None:
            self.NotificationClosed(id, CLOSED_BY_CALL)
        reply()

    @dbus.service.signal(NAME, signature="us")
    def ActionInvoked(self, id, action_key):
        pass

    @dbus.service.signal(NAME, signature="uu")
    def NotificationClosed(self, id, reason):
        pass

    # org.nudge.TestServer

    def lookup(self, id):
        if id not in self.shown:
            raise UnknownNotification(f"notification {id} is not shown")
        return self.shown[id]

    @dbus.service.method(CONTROL, in_signature="us", out_signature="")
    def InvokeAction(self, id, key):
        if key not in self.lookup(id)[1][0::2]:
            raise UnknownNotification(f"notification {id} has no action '{key}'")
        self.ActionInvoked(id, key)

    @dbus.service.method(CONTROL, in_signature="uu", out_signature="")
    def Close(self, id, reason):
        self.lookup(id)
        del self.shown[id]
        self.NotificationClosed(id, reason)

    @dbus.service.method(CONTROL, in_signature="b", out_signature="")
    def Hang(self, hang):
        self.hanging = bool(hang)

    @dbus.service.method(CONTROL, in_signature="", out_signature="a(uss)")
    def Shown(self):
        rows = [(dbus.UInt32(id), summary, body) for id, (_, _, summary, body) in sorted(self.shown.items())]
        return dbus.Array(rows, signature="(uss)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", required=True, help="the bus, e.g. unix:path=/tmp/x/bus")
    parser.add_argument("--capabilities", default="", help="comma-separated, as GetCapabilities returns them")
    parser.add_argument("--record", help="append a JSON line here for every call to org.freedesktop.Notifications")
    options = parser.parse_args()

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    loop = GLib.MainLoop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signum, loop.quit)
    connection = dbus.bus.BusConnection(options.address)
    connection.call_on_disconnection(lambda _: loop.quit())
    record = open(options.record, "a", encoding="utf-8") if options.record else None
    capabilities = [item for item in options.capabilities.split(",") if item]
    server = Server(connection, capabilities, record)
    if connection.request_name(NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE) != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
        sys.exit(f"notification-server: {NAME} is already owned on {options.address}")
    print("ready", flush=True)
    loop.run()
    server.remove_from_connection()
    if record:
        record.close()


if __name__ == "__main__":
    main()
