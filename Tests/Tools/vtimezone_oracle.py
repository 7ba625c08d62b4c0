"""Whether the VTIMEZONEs of an iCalendar file say what the zone database says.

    vtimezone_oracle.py FILE FIRST_YEAR LAST_YEAR

For each VTIMEZONE of FILE, Python's icalendar builds a time zone from the component alone (its TZID is not looked
up) and the offset it gives is compared with zoneinfo's for the zone of that TZID: at every change zoneinfo makes
from FIRST_YEAR to LAST_YEAR (a second before and at it) and at noon UTC of every fifth day. Prints one JSON object:
{"zones": how many were compared, "changes": how many changes, "problems": [sentences]}.
"""

import datetime
import json
import sys
import zoneinfo

import icalendar

UTC = datetime.timezone.utc


def changes(zone, first, last):
    """The instants zoneinfo's offset changes at from `first` to `last`, found by weeks (no zone changes twice within
    one) and bisected to the second."""
    found = []
    day = datetime.datetime(first, 1, 1, tzinfo=UTC)
    end = datetime.datetime(last + 1, 1, 1, tzinfo=UTC)
    offset = day.astimezone(zone).utcoffset()
    while day < end:
        following = day + datetime.timedelta(days=7)
        if following.astimezone(zone).utcoffset() != offset:
            low, high = day, following
            while high - low > datetime.timedelta(seconds=1):
                middle = low + (high - low) / 2
                if middle.astimezone(zone).utcoffset() == offset:
                    low = middle
                else:
                    high = middle
            found.append(high.replace(microsecond=0))
            offset = following.astimezone(zone).utcoffset()
        day = following
    return found


def main():
    path, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with open(path, "rb") as file:
        calendar = icalendar.Calendar.from_ical(file.read())
    report = {"zones": 0, "changes": 0, "problems": []}
    for component in calendar.walk("VTIMEZONE"):
        name = str(component["TZID"])
        theirs = zoneinfo.ZoneInfo(name)
        ours = component.to_tz(lookup_tzid=False)
        report["zones"] += 1
        instants = []
        for change in changes(theirs, first, last):
            instants += [change - datetime.timedelta(seconds=1), change]
            report["changes"] += 1
        day = datetime.datetime(first, 1, 1, 12, tzinfo=UTC)
        while day.year <= last:
            instants.append(day)
            day += datetime.timedelta(days=5)
        for instant in instants:
            expected = instant.astimezone(theirs).utcoffset()
            got = instant.astimezone(ours).utcoffset()
            if expected != got:
                report["problems"].append(f"{name}: at {instant.isoformat()} the offset is {expected}, the VTIMEZONE "
                                          f"says {got}")
                break
    print(json.dumps(report))


if __name__ == "__main__":
    main()
