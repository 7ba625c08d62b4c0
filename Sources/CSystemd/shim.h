// libsystemd's journal and bus APIs. Swift cannot call the variadic sd_journal_send, so nudge calls sd_journal_sendv with
// iovecs it builds itself.
#include <systemd/sd-bus.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>
