// Linux interfaces that Glibc's Swift module map leaves out.
#include <sys/timerfd.h>
#include <sys/types.h>

// struct ucred (the SO_PEERCRED result) is only declared under _GNU_SOURCE; this has the same layout.
struct nudge_ucred {
    pid_t pid;
    uid_t uid;
    gid_t gid;
};
