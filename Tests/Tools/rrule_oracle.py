"""Generated RFC 5545 recurrences and their occurrences as python-dateutil and recurring-ical-events compute them.

    rrule_oracle.py SEED COUNT

Prints a JSON list of COUNT cases: a rule (RRULE value), a zone, a DTSTART (a wall time in that zone, one the rule
gives, as RFC 5545 asks), EXDATE and RDATE wall times, an instant `after`, and the first ten occurrences after it
(UTC, to the second, each instant once) by dateutil's rruleset and, for a case without EXDATE, by
recurring-ical-events (through icalendar). RecurrenceOracleTests
compares nudge's (libical's) with both. The rules mix every RRULE part: FREQ from YEARLY to MINUTELY, INTERVAL,
COUNT, UNTIL, BYMONTH, BYWEEKNO, BYYEARDAY, BYMONTHDAY (negative too), BYDAY (with ordinals), BYHOUR, BYMINUTE,
BYSECOND, BYSETPOS and WKST, in zones with DST changes, starting near them.
"""

import datetime
import json
import random
import sys
import zoneinfo

import icalendar
import recurring_ical_events
from dateutil import rrule

UTC = datetime.timezone.utc
ZONES = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "UTC"]
DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
COUNT_SHOWN = 10


def utc_text(moment):
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def wall_text(moment):
    return moment.strftime("%Y%m%dT%H%M%S")


def pick_values(rng, values, most=3):
    return sorted(rng.sample(values, rng.randint(1, most)))


def rule_text(rng):
    freq = rng.choices(["YEARLY", "MONTHLY", "WEEKLY", "DAILY", "HOURLY", "MINUTELY"], [3, 4, 4, 3, 2, 1])[0]
    parts = ["FREQ=" + freq]
    if rng.random() < 0.4:
        parts.append(f"INTERVAL={rng.randint(2, 5) if freq != 'MINUTELY' else rng.choice([15, 30, 45, 90])}")
    if freq == "MINUTELY" and not any(p.startswith("INTERVAL") for p in parts):
        parts.append("INTERVAL=30")
    if freq in ("YEARLY", "MONTHLY") and rng.random() < 0.5:
        parts.append("BYMONTH=" + ",".join(map(str, pick_values(rng, list(range(1, 13))))))
    if freq == "YEARLY" and rng.random() < 0.15:
        parts.append("BYWEEKNO=" + ",".join(map(str, pick_values(rng, list(range(1, 53)) + [-1], 2))))
    elif freq == "YEARLY" and rng.random() < 0.15:
        parts.append("BYYEARDAY=" + ",".join(map(str, pick_values(rng, list(range(1, 366)) + [-1, -7], 2))))
    by_day = False
    if freq in ("YEARLY", "MONTHLY") and rng.random() < 0.4:
        parts.append("BYMONTHDAY=" + ",".join(map(str, pick_values(rng, list(range(1, 32)) + [-1, -2, -7]))))
    elif freq in ("YEARLY", "MONTHLY", "WEEKLY") and rng.random() < 0.6:
        by_day = True
        ordinal = freq in ("MONTHLY", "YEARLY") and rng.random() < 0.5 and not any(
            p.startswith("BYWEEKNO") for p in parts
        )
        days = pick_values(rng, DAYS, 2 if ordinal else 3)
        parts.append(
            "BYDAY="
            + ",".join((str(rng.choice([1, 2, 3, 4, -1, -2])) if ordinal else "") + day for day in days)
        )
    if freq in ("DAILY", "WEEKLY", "MONTHLY", "YEARLY") and rng.random() < 0.4:
        parts.append("BYHOUR=" + ",".join(map(str, pick_values(rng, [0, 1, 2, 3, 6, 9, 12, 18, 23], 2))))
        if rng.random() < 0.5:
            parts.append("BYMINUTE=" + ",".join(map(str, pick_values(rng, [0, 15, 30, 45], 2))))
    if freq == "HOURLY" and rng.random() < 0.3:
        parts.append("BYMINUTE=" + ",".join(map(str, pick_values(rng, [0, 20, 40], 2))))
    # BYSETPOS picks among the whole period's occurrences: its days and, with BYHOUR or BYMINUTE, their times.
    if (by_day or any(p.startswith("BYMONTHDAY") for p in parts)) and rng.random() < 0.2:
        parts.append("BYSETPOS=" + rng.choice(["1", "-1", "2", "1,-1", "-2,3"]))
    if freq == "WEEKLY" and rng.random() < 0.2:
        parts.append("WKST=" + rng.choice(["MO", "SU", "SA"]))
    end = rng.random()
    if end < 0.2:
        parts.append(f"COUNT={rng.randint(1, 40)}")
    elif end < 0.35:
        parts.append("UNTIL=PLACEHOLDER")
    return ";".join(parts)


def transitions(zone):
    """DST changes of 2025 to 2028 in `zone`, as aware datetimes a minute before each."""
    found = []
    moment = datetime.datetime(2025, 1, 1, tzinfo=UTC)
    offset = moment.astimezone(zone).utcoffset()
    while moment.year < 2029:
        moment += datetime.timedelta(hours=1)
        current = moment.astimezone(zone).utcoffset()
        if current != offset:
            found.append(moment)
            offset = current
    return found


def case(rng, zone_name, changes):
    zone = zoneinfo.ZoneInfo(zone_name)
    for _ in range(100):
        text = rule_text(rng)
        if changes and rng.random() < 0.6:
            near = rng.choice(changes).astimezone(zone) - datetime.timedelta(days=rng.randint(0, 40))
        else:
            near = datetime.datetime(rng.randint(2025, 2028), rng.randint(1, 12), rng.randint(1, 28), tzinfo=zone)
        candidate = near.replace(hour=rng.choice([0, 1, 2, 2, 3, 9, 12, 23]), minute=rng.choice([0, 30]), second=0,
                                 tzinfo=None)
        if "UNTIL=PLACEHOLDER" in text:
            until = candidate.replace(tzinfo=zone) + datetime.timedelta(days=rng.randint(1, 400))
            text = text.replace("UNTIL=PLACEHOLDER", "UNTIL=" + until.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ"))
        # The start the rule gives first at or after the candidate: RFC 5545 leaves a start it does not match
        # undefined. dateutil reads a naive start's rule in wall time, as RFC 5545 evaluates rules.
        try:
            naive_rule = rrule.rrulestr(text.split(";UNTIL=")[0] if "UNTIL=" in text else text, dtstart=candidate)
            # Within twenty years: a rule that matches seldom or never is not searched to year 9999.
            bounded = naive_rule.replace(count=None, until=candidate + datetime.timedelta(days=366 * 20))
            start = bounded.after(candidate, inc=True)
        except (ValueError, OverflowError):
            continue
        if start is None or start.year > 2040:
            continue
        aware_start = start.replace(tzinfo=zone)
        exdates, rdates = [], []
        try:
            series = rrule.rrulestr(text, dtstart=aware_start)
            upcoming = list(series.xafter(aware_start, count=6, inc=True))
        except (ValueError, OverflowError):
            continue
        if not upcoming:
            continue
        if len(upcoming) > 2 and rng.random() < 0.15:
            exdates = [rng.choice(upcoming[1:])]
        if rng.random() < 0.2:
            rdates = [(aware_start + datetime.timedelta(days=rng.randint(1, 60), hours=rng.randint(0, 5))).replace(
                minute=rng.choice([0, 30]))]
        after = aware_start + datetime.timedelta(days=rng.choice([0, 0, 1, 20, 200]), hours=rng.randint(-2, 3))
        return text, zone, aware_start, exdates, rdates, after
    raise RuntimeError("no case")


def dateutil_occurrences(text, start, exdates, rdates, after):
    found = rrule.rruleset()
    found.rrule(rrule.rrulestr(text, dtstart=start))
    for moment in exdates:
        found.exdate(moment)
    for moment in rdates:
        found.rdate(moment)
    # A wall time a DST change skips is read with the offset before it (RFC 5545), which can land it on the
    # instant of a later one, and aware datetimes of one zone compare by wall time: each instant once, in order,
    # after `after` as an instant. Asked from three hours of wall time before it, for a `after` in a DST change.
    moments = set()
    for moment in found.xafter(after - datetime.timedelta(hours=3), count=COUNT_SHOWN * 3, inc=False):
        if moment.astimezone(UTC) > after.astimezone(UTC):
            moments.add(moment.astimezone(UTC))
    return [utc_text(moment) for moment in sorted(moments)[:COUNT_SHOWN]]


def recurring_ical_events_occurrences(text, zone_name, start, exdates, rdates, after, until):
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//nudge//oracle//EN", "BEGIN:VEVENT", "UID:case",
             f"DTSTART;TZID={zone_name}:{wall_text(start)}", "RRULE:" + text]
    if exdates:
        lines.append(f"EXDATE;TZID={zone_name}:" + ",".join(wall_text(m) for m in exdates))
    if rdates:
        lines.append(f"RDATE;TZID={zone_name}:" + ",".join(wall_text(m) for m in rdates))
    lines += ["END:VEVENT", "END:VCALENDAR", ""]
    calendar = icalendar.Calendar.from_ical("\r\n".join(lines))
    events = recurring_ical_events.of(calendar).between(after + datetime.timedelta(seconds=1), until)
    moments = sorted({event["DTSTART"].dt.astimezone(UTC) for event in events})
    return [utc_text(moment) for moment in moments if moment > after][:COUNT_SHOWN]


def main():
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    changes = {name: transitions(zoneinfo.ZoneInfo(name)) for name in ZONES}
    cases = []
    for index in range(count):
        zone_name = ZONES[index % len(ZONES)]
        text, zone, start, exdates, rdates, after = case(rng, zone_name, changes[zone_name])
        ours = dateutil_occurrences(text, start, exdates, rdates, after)
        # recurring-ical-events asks for an end: just past dateutil's last (a series that ends ends there too).
        last = datetime.datetime.fromisoformat(ours[-1].replace("Z", "+00:00")) if ours else None
        until = (last + datetime.timedelta(seconds=1 if len(ours) == COUNT_SHOWN else 366 * 86_400) if last
                 else after + datetime.timedelta(days=366 * 30))
        cases.append({
            "rule": text,
            "zone": zone_name,
            "start": wall_text(start),
            "exdates": [wall_text(m) for m in exdates],
            "rdates": [wall_text(m) for m in rdates],
            "after": utc_text(after),
            "dateutil": ours,
            # recurring-ical-events reads an EXDATE differently (RecurrenceOracleTests says how): not asked then.
            "recurringIcalEvents": recurring_ical_events_occurrences(
                text, zone_name, start, exdates, rdates, after, until
            ) if not exdates else None,
        })
    print(json.dumps(cases))


if __name__ == "__main__":
    main()
