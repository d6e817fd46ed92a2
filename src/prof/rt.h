// SPDX-License-Identifier: GPL-2.0-only
/* rt — what the parts of libsonde-prof.so share: the per-thread slots and
 * their stack tables, the process-wide state, and the few functions one
 * part calls in another. The parts, each calling only those below it:
 *
 *   runtime.c    the start (the constructor)
 *   interpose.c  the libc calls sonde prof stands in for: fork, exec,
 *                _exit, and the program's own SIGPROF, signals and timers
 *   fatal.c      death by SIGINT/SIGTERM/SIGHUP: a raw dump written from
 *                the signal handler (async-signal-safe)
 *   stop.c       the end: samples to the log, the log to the writer
 *   threads.c    arming threads (timers, perf events), their slots, the
 *                log of finished threads, pthread_create
 *   handler.c    the SIGPROF handler and all it calls: async-signal-safe,
 *                no malloc, no locks, no stdio
 *   state.c      the state below, notes and messages, the interposed
 *                functions' next definitions
 *
 * Everything here has hidden visibility: the library exports only the
 * functions it interposes (runtime.map). */
#ifndef SONDE_PROF_RT_H
#define SONDE_PROF_RT_H

#include "dump.h"
#include "unwind.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

#define MAX_FRAMES 128
#define MAX_KFRAMES 64
#define MAX_SLOTS (1u << 20)
#define SIVAL_MAGIC 0x50f1ull	/* top 16 bits of our timers' sival */
#define RING_PAGES 8

enum slot_state { SLOT_FREE, SLOT_LIVE, SLOT_RETIRED };

/* One distinct stack of a thread, its frames in the slot's arena. */
struct ent {
	uint64_t hash, count, ns;
	uint32_t off;		/* into the arena, in words */
	uint16_t nkernel, nuser;
};

/* A thread being sampled: its timer or perf event, and its stack table,
 * written by the SIGPROF handler alone. */
struct slot {
	_Atomic int busy;	/* inside the handler */
	_Atomic int closed;	/* the handler must not touch the tables */
	int state;
	uint32_t index, gen;
	pid_t tid;
	bool hooked;		/* ours: it retires itself at its end */
	bool has_timer;
	timer_t timer;
	int perf_fd;
	struct perf_event_mmap_page *ring;
	uintptr_t stack_lo, stack_hi;	/* 0: unknown yet */
	uintptr_t other_lo, other_hi;	/* the last other stack seen */
	struct ent *tab;
	uint32_t cap, used;
	uint64_t *arena;
	size_t arena_cap, arena_used;	/* words */
	uint64_t signals, periods, ns, dropped, truncated;
	char name[16];		/* comm when armed from outside the thread */
	struct slot *next_free;
};

/* The process-wide state (state.c). */
struct rt_state {
	bool active;		/* SONDE_PROF was set and sampling runs */
	_Atomic int stopping;	/* exit or exec: no new threads armed */
	bool handed_over;	/* the program took SIGPROF */
	enum sprof_mode mode;
	uint32_t hz;
	uint64_t period_ns;
	pid_t self_pid;
	uint64_t start_ns, start_mono;
	char out_base[4096];	/* SONDE_PROF */
	bool is_root;		/* this process writes FILE, not FILE.PID */
	_Atomic uint64_t foreign;
	_Atomic uint32_t blocked_threads;	/* ended with SIGPROF blocked */
	pthread_key_t slot_key;
	uint64_t rand_state;

	struct slot **slots;	/* MAX_SLOTS pointers, populated lazily */
	_Atomic uint32_t nslots;
	struct slot *free_slots;
	atomic_flag lock;

	char *logbuf;		/* records of finished threads (dump.h) */
	size_t log_len, log_cap;

	char notes[2048];	/* conflicts etc.: reported at exit */
	size_t notes_len;

	/* What the program believes SIGPROF's disposition is. */
	struct sigaction prog_sigprof;
	/* SIGINT, SIGTERM, SIGHUP caught for a raw dump (fatal.c), and
	 * the disposition the program believes they have. */
	bool fatal_ours[NSIG];
	struct sigaction prog_fatal[NSIG];

	int (*real_pthread_create)(pthread_t *, const pthread_attr_t *,
				   void *(*)(void *), void *);
	int (*real_sigaction)(int, const struct sigaction *,
			      struct sigaction *);
};

extern struct rt_state rt;

/* The slot of the calling thread, as the handler last saw it. */
extern __thread __attribute__((tls_model("initial-exec"))) struct slot *
	rt_cur_slot;

static inline void spin_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&rt.lock, memory_order_acquire))
		sched_yield();
}

static inline void spin_unlock(void)
{
	atomic_flag_clear_explicit(&rt.lock, memory_order_release);
}

static inline pid_t gettid_raw(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static inline uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void *map_anon(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* state.c */
enum {
	REAL_EXIT, REAL_EXECVE, REAL_EXECVPE, REAL_EXECV, REAL_EXECVP,
	REAL_FEXECVE, REAL_SIGNAL, REAL_SYSV_SIGNAL, REAL_SETITIMER,
	REAL_TIMER_CREATE, NREAL,
};
/* The next definition of an interposed function (REAL_*). */
void *rt_next_sym(int which);
/* A line for the user at exit (and in the profile's comments). */
void rt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "sonde prof: ..." on stderr now. */
void rt_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The file this process writes: FILE, or FILE with its pid inserted. */
void rt_out_name(char *buf, size_t len);

/* stop.c */
/* Stop sampling, every live thread's samples to the log (lock held). In
 * a signal handler only async-signal-safe calls are made. */
void rt_stop_all(bool in_handler);
/* Write the log through libsonde-prof-write.so; the log is emptied. */
void rt_write_profile(void);
/* At exit: stop, write, report. */
void rt_prof_fini(void);

/* handler.c */
void rt_on_sigprof(int sig, siginfo_t *si, void *uc);

/* threads.c */
void rt_disarm(struct slot *s);
/* Wait until no handler runs on s, and keep them off it. */
void rt_close_slot(struct slot *s);
/* Move s's samples to the log and free the slot (lock held, s closed). */
void rt_retire(struct slot *s, const char *name, uint64_t cpu_ns);
void rt_read_comm(pid_t tid, char *name);
/* Arm the calling thread / the threads that exist already. */
void rt_register_self(void);
void rt_register_others(void);
/* slot_key's destructor: a thread ends. */
void rt_on_thread_end(void *p);

/* fatal.c */
void rt_catch_fatal(void);
/* Catch sig for a raw dump when prog, the disposition the program
 * believes it has, is the default; whether it is now caught. */
bool rt_catch_fatal_sig(int sig, const struct sigaction *prog);
bool rt_is_fatal_ours(int sig);

/* interpose.c */
void rt_atfork_prepare(void);
void rt_atfork_parent(void);
void rt_atfork_child(void);
bool rt_is_handler(const struct sigaction *act);

#endif
