"""A CalDAV client's changes to tasks on a server, for VdirSyncTests: Python's caldav, as a phone's or a web
client's would be, not vdirsyncer's own.

    caldav_tasks.py make SERVER NAME UID SUMMARY DUE     a task calendar NAME with one task (DUE as 20270120T080000Z)
    caldav_tasks.py move-due CALENDAR UID DUE            the task's due date moved, as another client would
    caldav_tasks.py status CALENDAR UID                  the task's STATUS and PERCENT-COMPLETE, as the server has it
"""
import datetime
import sys

import caldav


def client(url):
    # Radicale in the test takes any name with any password (its auth type is none).
    return caldav.DAVClient(url, username="test", password="test")


def instant(text):
    return datetime.datetime.strptime(text, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)


def task(calendar_url, uid):
    calendar = caldav.Calendar(client(calendar_url), url=calendar_url)
    # Completed ones too: a search for tasks leaves them out unless asked.
    for todo in calendar.todos(include_completed=True):
        if str(todo.icalendar_component.get("UID")) == uid:
            return todo
    sys.exit(f"caldav_tasks.py: no task {uid} in {calendar_url}")


def main(command, *arguments):
    if command == "make":
        server, name, uid, summary, due = arguments
        calendar = client(server).principal().make_calendar(
            name=name, cal_id=name, supported_calendar_component_set=["VTODO"]
        )
        calendar.save_todo(
            "\r\n".join([
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//nudge tests//caldav//EN", "BEGIN:VTODO", "UID:" + uid,
                "DTSTAMP:20270101T000000Z", "SUMMARY:" + summary, "DUE:" + due, "END:VTODO", "END:VCALENDAR", "",
            ])
        )
        print(calendar.url)
    elif command == "move-due":
        calendar_url, uid, due = arguments
        todo = task(calendar_url, uid)
        component = todo.icalendar_component
        del component["DUE"]
        component.add("DUE", instant(due))
        component["SEQUENCE"] = int(component.get("SEQUENCE", 0)) + 1
        todo.save()
    elif command == "status":
        calendar_url, uid = arguments
        component = task(calendar_url, uid).icalendar_component
        print(component.get("STATUS", ""), component.get("PERCENT-COMPLETE", ""))
    else:
        sys.exit(f"caldav_tasks.py: unknown command {command}")


if __name__ == "__main__":
    main(*sys.argv[1:])
