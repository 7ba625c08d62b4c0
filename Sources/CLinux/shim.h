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

#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

// A descriptor for process `pid` that polls readable once it has exited (Linux 5.3); -1 and errno otherwise.
// (syscall is variadic, which Swift cannot call, and glibc 2.36's pidfd_open wrapper is not in Glibc's module.)
static inline int nudge_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

#include <spawn.h>

// Closes every descriptor from `from` on in the child (glibc 2.34), which Glibc's module hides behind _GNU_SOURCE.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

// The calling thread's kernel ID (as /proc/self/task lists it); pthread_t values are reused at once.
static inline pid_t nudge_gettid(void) {
    return (pid_t)syscall(SYS_gettid);
}

#include <sys/prctl.h>

// Names the calling thread, as `top` and /proc/self/task/*/comm show it (cut to 15 bytes). (prctl is variadic.)
static inline int nudge_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

// Swift concurrency's hook for its global executor (the runtime's ConcurrencyHooks), which nudged points at NIO's
// event loops. NIO looks it up with dlsym, which cannot find it when the runtime is linked in statically (the
// toolchain's link keeps the runtime's symbols out of the dynamic table); a reference the linker resolves can, in
// both builds. Declared untyped: only its address is taken.
extern void *swift_task_enqueueGlobal_hook;
static inline void **nudge_enqueue_global_hook(void) {
    return &swift_task_enqueueGlobal_hook;
}

// malloc_trim, to hand back to the system what a large transient reading left free.
#include <malloc.h>
