// SPDX-License-Identifier: GPL-2.0-only
/* interpose — the libc functions libsonde-prof.so stands in for (the
 * only ones it exports, runtime.map): fork's handlers, the exec family
 * (the image's samples are written before an exec), _exit (which skips
 * destructors), and the program's own use of SIGPROF, signals and
 * profiling timers. See rt.h. */
#include "rt.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/time.h>

/* Programs that end with _exit (shells do) skip the destructor above: the
 * profile is written on the way out all the same. */
EXPORT _Noreturn void _exit(int status)
{
	void (*f)(int) = rt_next_sym(REAL_EXIT);

	rt_prof_fini();
	if (f)
		f(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

EXPORT _Noreturn void _Exit(int status)
{
	_exit(status);
}

/* ---- fork and exec ---- */

void rt_atfork_prepare(void)
{
	if (rt.active)
		spin_lock();
}

void rt_atfork_parent(void)
{
	if (rt.active)
		spin_unlock();
}

/* The child has one thread: forget the parent's samples and threads, and
 * arm this one. It writes FILE.PID at its exit. */
void rt_atfork_child(void)
{
	uint32_t n = atomic_load(&rt.nslots);

	if (!rt.active)
		return;
	atomic_flag_clear(&rt.lock);
	rt.self_pid = getpid();
	rt.is_root = false;
	rt.log_len = 0;
	rt.notes_len = 0;
	rt.notes[0] = '\0';
	atomic_store(&rt.foreign, 0);
	rt.start_ns = now_ns(CLOCK_REALTIME);
	rt.start_mono = now_ns(CLOCK_MONOTONIC);
	rt.free_slots = NULL;
	for (uint32_t i = 0; i < n; i++) {
		struct slot *s = rt.slots[i];

		/* Timers and perf events are not inherited; the fds are. */
		if (s->perf_fd >= 0) {
			munmap(s->ring, (RING_PAGES + 1) * sysconf(_SC_PAGESIZE));
			close(s->perf_fd);
			s->perf_fd = -1;
		}
		s->has_timer = false;
		s->state = SLOT_FREE;
		s->next_free = rt.free_slots;
		rt.free_slots = s;
	}
	rt_register_self();
}

/* Before an exec the image's samples would vanish: write them now (the
 * next image, profiled too, merges this file into its own at its exit). */
static void before_exec(void)
{
	sigset_t all, old;

	if (!rt.active || getpid() != rt.self_pid || rt.handed_over)
		return;	/* also a vfork child, which shares our memory */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	atomic_store(&rt.stopping, 1);
	spin_lock();
	rt_stop_all(false);
	spin_unlock();
	if (rt.log_len)
		rt_write_profile();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The exec failed: sampling goes on (the file already written is merged at
 * exit). Threads other than the caller were retired: re-arm them. */
static void after_failed_exec(void)
{
	if (!rt.active || getpid() != rt.self_pid || rt.handed_over)
		return;
	atomic_store(&rt.stopping, 0);
	rt_register_others();
	rt_register_self();
}

#define EXEC_WRAP(call)                                                  \
	do {                                                             \
		int r_, e_;                                              \
		before_exec();                                           \
		r_ = (call);                                             \
		e_ = errno;                                              \
		after_failed_exec();                                     \
		errno = e_;                                              \
		return r_;                                               \
	} while (0)

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);


EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn f = (execve_fn)rt_next_sym(REAL_EXECVE);

	EXEC_WRAP(f(path, argv, envp));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	execve_fn f = (execve_fn)rt_next_sym(REAL_EXECVPE);

	EXEC_WRAP(f(file, argv, envp));
}

EXPORT int execv(const char *path, char *const argv[])
{
	execv_fn f = (execv_fn)rt_next_sym(REAL_EXECV);

	EXEC_WRAP(f(path, argv));
}

EXPORT int execvp(const char *file, char *const argv[])
{
	execv_fn f = (execv_fn)rt_next_sym(REAL_EXECVP);

	EXEC_WRAP(f(file, argv));
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	fexecve_fn f = (fexecve_fn)rt_next_sym(REAL_FEXECVE);

	EXEC_WRAP(f(fd, argv, envp));
}

/* execl, execlp, execle: the variadic arguments as an array on the stack
 * (no malloc: these run in vfork children too), as glibc's own do. */
#define MAX_LIST_ARGS 4096

enum exec_kind { EXEC_V, EXEC_VP, EXEC_VE };

static int exec_list(enum exec_kind kind, const char *path, const char *arg0,
		     va_list ap)
{
	va_list count;
	size_t n = 1;
	char **envp = NULL;

	va_copy(count, ap);
	while (arg0 && va_arg(count, const char *))
		n++;
	va_end(count);
	if (n >= MAX_LIST_ARGS) {
		errno = E2BIG;
		return -1;
	}
	{
		char *v[n + 1];

		v[0] = (char *)arg0;
		for (size_t i = 1; i < n; i++)
			v[i] = va_arg(ap, char *);
		v[arg0 ? n : 0] = NULL;
		if (kind == EXEC_VE) {
			(void)va_arg(ap, char *);	/* the NULL */
			envp = va_arg(ap, char **);
		}
		return kind == EXEC_VP ? execvp(path, v) :
		       kind == EXEC_VE ? execve(path, v, envp) : execv(path, v);
	}
}

EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	int r;

	va_start(ap, arg);
	r = exec_list(EXEC_V, path, arg, ap);
	va_end(ap);
	return r;
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	int r;

	va_start(ap, arg);
	r = exec_list(EXEC_VP, file, arg, ap);
	va_end(ap);
	return r;
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	int r;

	va_start(ap, arg);
	r = exec_list(EXEC_VE, path, arg, ap);
	va_end(ap);
	return r;
}

/* ---- SIGPROF conflicts ---- */

static double since_start(void)
{
	return (double)(now_ns(CLOCK_MONOTONIC) - rt.start_mono) / 1e9;
}

/* The program takes SIGPROF for itself: stop sampling, step aside. With
 * restore, SIGPROF gets the disposition the program believes it has (its
 * timer's signal then does what it would without sonde: the default kills,
 * after a raw dump); else the caller installs the program's handler. */
static void hand_over(const char *what, bool restore)
{
	sigset_t all, old;

	if (!rt.active || rt.handed_over)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	spin_lock();
	rt.handed_over = true;
	{
		uint32_t n = atomic_load(&rt.nslots);

		for (uint32_t i = 0; i < n; i++)
			if (rt.slots[i]->state == SLOT_LIVE)
				rt_disarm(rt.slots[i]);
	}
	spin_unlock();
	rt_note("the program %s after %.3f s: sampling stopped there, the "
		"profile covers only the time before (sonde prof needs SIGPROF "
		"for itself)", what, since_start());
	/* timer_delete dropped our timers' pending signals; a perf
	 * event's (--kernel) may still come, as the program's own would */
	if (restore && !rt_catch_fatal_sig(SIGPROF, &rt.prog_sigprof))
		rt.real_sigaction(SIGPROF, &rt.prog_sigprof, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

bool rt_is_handler(const struct sigaction *act)
{
	return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

EXPORT int sigaction(int sig, const struct sigaction *act,
		     struct sigaction *old)
{
	if (!rt.real_sigaction)
		rt.real_sigaction = dlsym(RTLD_NEXT, "sigaction");
	if (rt_is_fatal_ours(sig)) {
		/* The program sees the default it left. Setting the default
		 * again (shells do) changes nothing; a handler or SIG_IGN gives
		 * the signal back to it. */
		if (old)
			*old = rt.prog_fatal[sig];
		if (!act)
			return 0;
		if (act->sa_handler == SIG_DFL && !(act->sa_flags & SA_SIGINFO)) {
			rt.prog_fatal[sig] = *act;
			return 0;
		}
		rt.fatal_ours[sig] = false;
		return rt.real_sigaction(sig, act, NULL);
	}
	if (sig != SIGPROF || !rt.active || rt.handed_over)
		return rt.real_sigaction(sig, act, old);
	/* While sonde samples, the program sees and sets its own idea of
	 * SIGPROF; a real handler means it wants SIGPROF itself. */
	if (old)
		*old = rt.prog_sigprof;
	if (!act)
		return 0;
	if (rt_is_handler(act)) {
		hand_over("installed its own SIGPROF handler", false);
		return rt.real_sigaction(sig, act, NULL);
	}
	rt.prog_sigprof = *act;
	return 0;
}

static sighandler_t set_handler(int sig, sighandler_t h, int flags)
{
	struct sigaction act, old;

	memset(&act, 0, sizeof(act));
	act.sa_handler = h;
	act.sa_flags = flags;
	sigemptyset(&act.sa_mask);
	if (sigaction(sig, &act, &old))
		return SIG_ERR;
	return old.sa_handler;
}

EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	if ((sig != SIGPROF || !rt.active || rt.handed_over) && !rt_is_fatal_ours(sig)) {
		sighandler_t (*f)(int, sighandler_t) = rt_next_sym(REAL_SIGNAL);

		return f(sig, h);
	}
	return set_handler(sig, h, SA_RESTART);
}

EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
	if ((sig != SIGPROF || !rt.active || rt.handed_over) && !rt_is_fatal_ours(sig)) {
		sighandler_t (*f)(int, sighandler_t) = rt_next_sym(REAL_SYSV_SIGNAL);

		return f(sig, h);
	}
	return set_handler(sig, h, (int)(SA_RESETHAND | SA_NODEFER));
}

sighandler_t bsd_signal(int sig, sighandler_t h);

EXPORT sighandler_t bsd_signal(int sig, sighandler_t h)
{
	return signal(sig, h);
}

EXPORT int setitimer(__itimer_which_t which, const struct itimerval *nv,
		     struct itimerval *ov)
{
	int (*f)(__itimer_which_t, const struct itimerval *,
		 struct itimerval *) = rt_next_sym(REAL_SETITIMER);

	if (which == ITIMER_PROF && rt.active && !rt.handed_over && nv &&
	    (nv->it_value.tv_sec || nv->it_value.tv_usec))
		hand_over("armed ITIMER_PROF", true);
	return f(which, nv, ov);
}

EXPORT int timer_create(clockid_t clk, struct sigevent *sev, timer_t *id)
{
	int (*f)(clockid_t, struct sigevent *, timer_t *) =
		rt_next_sym(REAL_TIMER_CREATE);

	if (rt.active && !rt.handed_over && sev && sev->sigev_signo == SIGPROF &&
	    (sev->sigev_notify == SIGEV_SIGNAL ||
	     sev->sigev_notify == SIGEV_THREAD_ID))
		hand_over("created a timer that sends SIGPROF", true);
	return f(clk, sev, id);
}
