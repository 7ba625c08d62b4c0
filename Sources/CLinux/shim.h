// Linux interfaces that Glibc's Swift module map leaves out.
#include <sys/timerfd.h>
#include <sys/types.h>

// struct ucred (the SO_PEERCRED result) is only declared under _GNU_SOURCE; this has the same layout.
struct nudge_ucred {
    pid_t pid;
    uid_t uid;
    gid_t gid;
};

#include <sys/ioctl.h>

// The width of the terminal on `fd`, in columns; 0 when it is not a terminal or does not say. (ioctl is variadic,
// which Swift cannot call.)
static inline int nudge_terminal_columns(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
    return size.ws_col;
}
