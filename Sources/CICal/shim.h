// libical (Debian: libical-dev), the reference implementation of RFC 5545: nudge uses its recurrence iterator.
#include <libical/ical.h>
