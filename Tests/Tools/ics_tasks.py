"""What Python's icalendar reads in an iCalendar file's tasks, in the terms nudge keeps: one JSON object per VTODO.

    ics_tasks.py ZONE FILE
    ics_tasks.py ZONE compare MANIFEST

ZONE is the zone floating times are read in (nudged's). For each VTODO: uid, summary, done (STATUS COMPLETED or
CANCELLED, a COMPLETED, or PERCENT-COMPLETE 100, as RFC 5545 lets a program say it), completed (its COMPLETED as a
UTC instant), priority (high 1-4, low 6-9, else normal), due (a UTC instant) or dueDay (a date-only DUE), rrule
(its due dates expanded by dateutil from DUE, in `compare`), and alarms (seconds before the instant nudge reminds
at, the due instant or 09:00 of the due day, of each alarm at or before it; RELATED=START taken from DTSTART, and a
date's alarms counted from its start, RFC 5545 §3.8.6.3); a file icalendar cannot read prints
{"error": why}. `compare` reads a manifest of files nudge imported and exported (CorpusTests) and prints what the
exports say differently from the files.
"""

import datetime
import json
import sys
import zoneinfo

import icalendar
from dateutil import rrule as dateutil_rrule

UTC = datetime.timezone.utc


def instant(value, zone):
    """A date-time as a UTC instant (floating: in `zone`); None for a date."""
    if not isinstance(value, datetime.datetime):
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone)
    return value.astimezone(UTC)


def text(value):
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def day_start(value, zone):
    """The first instant of a date in `zone` (a date's alarms count from it)."""
    return datetime.datetime(value.year, value.month, value.day, tzinfo=zone).astimezone(UTC)


def alarms(todo, due, end, start, zone):
    """Seconds before `due` (where nudge reminds) of each alarm at or before it, longest first; RELATED=END counts
    from `end`, the DUE as a date-time or a date's start."""
    if due is None:
        return []
    leads = set()
    for alarm in todo.walk("VALARM"):
        trigger = alarm.get("TRIGGER")
        if trigger is None:
            continue
        if isinstance(trigger.dt, datetime.timedelta):
            related = trigger.params.get("RELATED", "START").upper()
            base = end if related == "END" else start
            if base is None:
                continue
            when = base + trigger.dt
        else:
            when = instant(trigger.dt, zone)
        lead = (due - when).total_seconds()
        if lead >= 0:
            leads.add(lead)
    return sorted(leads, reverse=True)


def task(todo, zone):
    status = str(todo.get("STATUS", "")).upper()
    done = (
        status in ("COMPLETED", "CANCELLED")
        or (status == "" and "COMPLETED" in todo)
        or str(todo.get("PERCENT-COMPLETE", "")) == "100"
    )
    completed = todo.get("COMPLETED")
    completed_at = instant(completed.dt, zone) if completed is not None else None
    if completed is not None and isinstance(completed.dt, datetime.datetime) and completed.dt.tzinfo is None:
        # icalendar leaves a COMPLETED with a TZID (RFC 5545 asks for UTC) naive: the file means that zone.
        try:
            completed_at = instant(completed.dt.replace(tzinfo=zoneinfo.ZoneInfo(completed.params["TZID"])), zone)
        except (KeyError, ValueError, zoneinfo.ZoneInfoNotFoundError):
            pass
    priority = todo.get("PRIORITY")
    number = int(priority) if priority is not None and str(priority).strip() else 0
    due_value = todo.get("DUE")
    start_value = todo.get("DTSTART")
    due = instant(due_value.dt, zone) if due_value is not None else None
    start = instant(start_value.dt, zone) if start_value is not None else None
    if start_value is not None and start is None:
        start = day_start(start_value.dt, zone)
    due_day = due_value.dt if due_value is not None and due is None else None
    # nudge counts a due day's alarms back from 09:00 of it (where it sorts), in nudged's zone.
    reminds = due if due_day is None else day_start(due_day, zone) + datetime.timedelta(hours=9)
    end = due if due_day is None else day_start(due_day, zone)
    if due is None and start is not None and "DURATION" in todo:
        due = start + todo["DURATION"].dt
    result = {
        "uid": str(todo["UID"]) if "UID" in todo else None,
        "summary": str(todo.get("SUMMARY", "")),
        "done": done,
        "completed": text(completed_at) if done else None,
        "priority": "high" if 1 <= number <= 4 else "low" if 6 <= number <= 9 else "normal",
        "due": text(due),
        "dueDay": due_day.isoformat() if due_day is not None else None,
        "rrule": todo["RRULE"].to_ical().decode() if "RRULE" in todo and not isinstance(todo["RRULE"], list) else None,
        "alarms": alarms(todo, reminds, end, start, zone),
    }
    return result


def todos(path):
    with open(path, "rb") as file:
        data = file.read()
    return [todo for component in icalendar.Calendar.from_ical(data, multiple=True) for todo in component.walk("VTODO")]


def series(todo, zone):
    """The task's due dates as a dateutil rruleset, or None."""
    due = todo.get("DUE")
    if "RRULE" not in todo or due is None:
        return None
    if isinstance(due.dt, datetime.datetime):
        anchor = due.dt if due.dt.tzinfo is not None else due.dt.replace(tzinfo=zone)
    else:
        # nudge keeps a series as instants: a repeating task due on a day repeats at 09:00 on its days.
        anchor = datetime.datetime(due.dt.year, due.dt.month, due.dt.day, 9, tzinfo=zone)
    found = dateutil_rrule.rruleset()
    for rule in todo["RRULE"] if isinstance(todo["RRULE"], list) else [todo["RRULE"]]:
        found.rrule(dateutil_rrule.rrulestr(rule.to_ical().decode(), dtstart=anchor))
    for name, add in (("EXDATE", found.exdate), ("RDATE", found.rdate)):
        values = todo.get(name)
        for group in values if isinstance(values, list) else [values] if values is not None else []:
            for entry in group.dts:
                if isinstance(entry.dt, datetime.datetime):
                    add(entry.dt if entry.dt.tzinfo else entry.dt.replace(tzinfo=zone))
    return found


def compare(zone, original_path, export_path, import_path):
    """What nudge's import and export of a file say differently from the file, as icalendar reads both: a list of
    sentences, and how many tasks were compared."""
    with open(import_path) as file:
        report = json.load(file)
    originals = todos(original_path)
    exported = {str(todo.get("UID")): todo for todo in todos(export_path)}
    problems = []
    compared = 0
    for result in report["results"]:
        if result["outcome"] == "skipped" or "itemID" not in result:
            continue
        uid = result.get("uid")
        candidates = [
            t for t in originals
            if (str(t.get("UID", "")) == uid if uid else "UID" not in t and str(t.get("SUMMARY", "")) == result["summary"])
        ]
        if not candidates:
            problems.append(f"line {result['line']}: no task of the file matches the import's result {result}")
            continue
        original = candidates[0]
        originals.remove(original)
        export = next((t for key, t in exported.items() if key == uid or key.startswith(f"{result['itemID']}-")), None)
        if export is None:
            problems.append(f"line {result['line']}: item {result['itemID']} is missing from the export")
            continue
        compared += 1
        o, e = task(original, zone), task(export, zone)
        where = f"line {result['line']} ({o['summary'][:40]!r})"
        for key in ("summary", "done", "priority"):
            if o[key] != e[key]:
                problems.append(f"{where}: {key} {o[key]!r} became {e[key]!r}")
        if o["completed"] is not None and o["completed"] != e["completed"]:
            problems.append(f"{where}: completed {o['completed']} became {e['completed']}")
        notes = " ".join(result.get("notes", []))
        kept_rule = "RRULE" in export
        if "RRULE" in original and not kept_rule and "repeat" not in notes and "RRULE" not in notes:
            problems.append(f"{where}: RRULE {o['rrule']} was dropped without a note ({result.get('notes')})")
        if "RRULE" not in original and kept_rule:
            problems.append(f"{where}: the export repeats ({e['rrule']}), the file does not")
        if kept_rule and "RRULE" in original:
            # A series that reminds moves on to its next occurrence: compare the due dates from the export's on.
            first = instant(export["DUE"].dt, zone)
            theirs, ours = series(original, zone), series(export, zone)
            expected = [text(t.astimezone(UTC)) for t in theirs.xafter(first, count=5, inc=True)] if theirs else None
            got = [text(t.astimezone(UTC)) for t in ours.xafter(first, count=5, inc=True)] if ours else None
            if expected != got:
                problems.append(f"{where}: from {text(first)} the file's {o['rrule']} gives {expected}, the export's "
                                f"{e['rrule']} {got}")
        elif o["dueDay"] is not None:
            if e["dueDay"] != o["dueDay"]:
                problems.append(f"{where}: due on {o['dueDay']} became due {e['dueDay'] or e['due']}")
        elif o["due"] != e["due"]:
            problems.append(f"{where}: due {o['due']} became {e['due']}")
        # nudge reminds at the due instant when a task has any alarm at or before it, and warns at the others.
        expected_alarms = sorted(set(o["alarms"]) | {0.0}, reverse=True) if o["alarms"] else []
        if (o["due"] or o["dueDay"]) is not None and not kept_rule and expected_alarms != e["alarms"]:
            problems.append(f"{where}: alarms {o['alarms']} became {e['alarms']}")
    return compared, problems


def compare_all(zone, manifest_path):
    """Every file of a manifest ([{name, original, export, import}]): its problems, or why icalendar cannot read it."""
    with open(manifest_path) as file:
        manifest = json.load(file)
    summary = {"compared": 0, "problems": [], "originalsUnread": [], "exportsUnread": []}
    for entry in manifest:
        try:
            todos(entry["export"])
        except Exception as error:
            summary["exportsUnread"].append(f"{entry['name']}: {type(error).__name__}: {error}")
            continue
        try:
            todos(entry["original"])
        except Exception as error:  # nudge reads what icalendar does not: nothing to compare with
            summary["originalsUnread"].append(f"{entry['name']}: {type(error).__name__}: {str(error)[:200]}")
            continue
        compared, problems = compare(zone, entry["original"], entry["export"], entry["import"])
        summary["compared"] += compared
        summary["problems"] += [f"{entry['name']} {problem}" for problem in problems]
    print(json.dumps(summary))


def main():
    zone = zoneinfo.ZoneInfo(sys.argv[1])
    if sys.argv[2] == "compare":
        compare_all(zone, sys.argv[3])
        return
    try:
        print(json.dumps([task(todo, zone) for todo in todos(sys.argv[2])]))
    except Exception as error:  # icalendar refuses the file: say so, nudge's reading is compared with nothing
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))


if __name__ == "__main__":
    main()
