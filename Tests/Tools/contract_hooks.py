"""What the contract names but cannot spell, for Schemathesis (scripts/contract-check loads it as SCHEMATHESIS_HOOKS).

docs/openapi.yaml marks five kinds of string with a `format` of its own, because their rules are past what JSON
Schema can say: `duration-iso8601` (the grammar is the `Duration` pattern; what a field bounds, such as a warning's
lead of at most 366 days, is not), `repeat-after` (a duration from an hour to 3,660 days), `catch-up` (`always`,
`never` or a duration), `nag` (`every=…;times=…`, its parts in range) and `calendar-expression` (a systemd calendar
expression, a grammar of its own). The import's body is an iCalendar document. Here each gets values that
are valid wherever the contract uses them, so that positive requests reach past the first field check; negative
requests are Schemathesis' own, and nudged must refuse every one.

One thing it holds back on purpose: how far the manual clock moves. nudged fires every occurrence of a recurring item
at its own instant as the manual clock passes it (a turn of the loop at a time, answering reads between turns), so
an item that repeats hourly and a move of a thousand years is nine million decisions: correct, and hours of work,
which is not what these checks are for (`scripts/bench firing` measures long moves). So a clock move's `to` is
brought into the first days of 2027 and its `advance` kept to a day, and calendar expressions repeat hourly at most.
Only values that are already valid are changed, so a negative request stays negative.
"""

import datetime
import hashlib
import pathlib
import re

import schemathesis
from hypothesis import strategies as st


def _iso8601(days: int, hours: int, minutes: int, seconds: int, half: bool) -> str:
    time = ""
    if hours:
        time += f"{hours}H"
    if minutes:
        time += f"{minutes}M"
    if seconds or half:
        time += f"{seconds}.5S" if half else f"{seconds}S"
    return "P" + (f"{days}D" if days else "") + ("T" + time if time else "")


def _lengths(days: int, least_hours: int, weeks: int):
    """Durations of up to `days` days and 23:59:59.5 with at least `least_hours` hours, or 1 to `weeks` weeks."""
    return st.one_of(
        st.builds(
            _iso8601,
            st.integers(0, days),
            st.integers(least_hours, 23),
            st.integers(0, 59),
            st.integers(0, 59),
            st.booleans(),
        ).filter(lambda text: text != "P"),
        st.integers(1, weeks).map(lambda count: f"P{count}W"),
    )


# From half a second to 365 days, 23:59:59.5: a warning's lead (at most 366 days), a catch-up window, a snooze and a
# clock move (dozens of which stay far from 9999 from any clock a request sets before the last few years).
_durations = _lengths(365, 0, 52)

schemathesis.openapi.format("duration-iso8601", _durations)
# An hour to 3,659 days, 23:59:59.5: a repeat after completion (1 hour to 3,660 days).
schemathesis.openapi.format("repeat-after", _lengths(3659, 1, 522))
schemathesis.openapi.format("catch-up", st.one_of(st.sampled_from(["always", "never"]), _durations))


@st.composite
def _nags(draw) -> str:
    """A nag nudged takes: every a whole number of seconds from a minute to 365 days, 1 to 1,000 times, maybe until
    seen, maybe escalating after 0 to `times` repeats."""
    seconds = draw(st.integers(60, 365 * 86_400))
    every = _iso8601(seconds // 86_400, seconds // 3600 % 24, seconds // 60 % 60, seconds % 60, False)
    times = draw(st.integers(1, 1000))
    text = f"every={every};times={times}"
    if draw(st.booleans()):
        text += ";until=seen"
    if draw(st.booleans()):
        text += f";escalateAfter={draw(st.integers(0, times))}"
    return text


schemathesis.openapi.format("nag", _nags())

# Each has occurrences for centuries after any instant up to 9000: a rule with none ahead is refused as a conflict
# with the clock (409), which a clock a request set near 9999 would cause.
schemathesis.openapi.format(
    "calendar-expression",
    st.sampled_from(
        [
            "daily",
            "weekly",
            "hourly",
            "Mon..Fri 09:30",
            "Sat 10:00 Europe/Berlin",
            "*-*~1 18:00",
            "*-*-* 00/6:00:00",
            "*-*-* 08:00:00 UTC",
            "Mon,Wed *-*-* 12:00:00",
            "*-02-29 09:00",
            "quarterly",
        ]
    ),
)


def _calendar(summary: str, due: str, rule: str | None, completed: bool) -> str:
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//nudge//contract-check//EN",
        "BEGIN:VTODO",
        f"UID:{hashlib.sha1(f'{summary}{due}{rule}'.encode()).hexdigest()}@contract-check",
        "DTSTAMP:20270101T000000Z",
        "SUMMARY:" + summary,
        "DUE:" + due,
    ]
    if rule:
        lines.append("RRULE:" + rule)
    if completed:
        lines += ["STATUS:COMPLETED", "COMPLETED:20270101T000000Z"]
    lines += ["END:VTODO", "END:VCALENDAR", ""]
    return "\r\n".join(lines)


schemathesis.openapi.media_type(
    "text/calendar",
    st.builds(
        _calendar,
        st.text(st.characters(codec="utf-8", categories=["L", "N", "Zs"]), min_size=1, max_size=40).filter(
            lambda text: text.strip()
        ),
        st.dates(datetime.date(1970, 1, 1), datetime.date(2099, 12, 31)).map(lambda day: day.strftime("%Y%m%dT090000Z")),
        st.sampled_from([None, "FREQ=DAILY", "FREQ=WEEKLY;BYDAY=MO,WE", "FREQ=MONTHLY;INTERVAL=2"]),
        st.booleans(),
    ).map(str.encode),
)


_START = datetime.datetime(2027, 1, 1, tzinfo=datetime.timezone.utc)
_WINDOW_SECONDS = 3 * 86_400
# What the contract calls a duration and an instant, exactly: a value is brought within reach only if it is already
# valid, so that a request meant to be refused stays refused.
_DOCUMENT = pathlib.Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml"
_DURATION = re.compile(re.search(r"\n    Duration:\n(?:.*\n)*?      pattern: '([^']*)'", _DOCUMENT.read_text()).group(1))
_INSTANT = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$")
_UNIT_SECONDS = {"W": 604_800, "D": 86_400, "H": 3_600, "M": 60, "S": 1}


def _seconds(duration: str) -> float | None:
    if not _DURATION.fullmatch(duration):
        return None
    total = 0.0
    for amount, unit in re.findall(r"([0-9.]+)([WDHMS])", duration.replace("T", "")):
        total += float(amount) * _UNIT_SECONDS[unit]
    return total


def _within_reach(move: dict) -> None:
    """Brings a clock move that is valid as it stands into the window the module's docstring gives."""
    to = move.get("to")
    if isinstance(to, str) and _INSTANT.fullmatch(to):
        try:
            # Python reads at most six digits of fraction, and no leap second: those stay as they are.
            instant = datetime.datetime.fromisoformat(to.upper().replace("Z", "+00:00"))
        except ValueError:
            instant = None
        if instant is not None:
            offset = int(instant.timestamp()) % _WINDOW_SECONDS
            move["to"] = (_START + datetime.timedelta(seconds=offset)).strftime("%Y-%m-%dT%H:%M:%SZ")
    advance = move.get("advance")
    if isinstance(advance, str):
        seconds = _seconds(advance)
        if seconds is not None and seconds > 86_400:
            move["advance"] = "PT1H"


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.method.upper() != "POST" or not isinstance(case.body, dict):
        return
    if case.path == "/v1/clock":
        _within_reach(case.body)
    elif case.path == "/v1/batch" and isinstance(case.body.get("operations"), list):
        for operation in case.body["operations"]:
            if isinstance(operation, dict) and operation.get("op") == "clock" and isinstance(operation.get("move"), dict):
                _within_reach(operation["move"])
