// SPDX-License-Identifier: GPL-2.0-only
/* The Linux report parser over real crash reports from other projects
 * (../shared/corpus/linux-reports): syzkaller's parser test data, whose
 * files state the expected TITLE (kind "in" function) and FRAME, and
 * satyr's kernel oopses with their expected first and last functions.
 * Every file must parse (under ASan/UBSan in the sanitizer build); the
 * kind and culprit must agree with syzkaller, and the first and last frame
 * with satyr, for at least 95 % of the files that state them. The
 * agreement figure is printed; KP_VERBOSE=1 lists each disagreement. */
#include "test.h"
#include "kptrace/report.h"

#include <ctype.h>
#include <dirent.h>
#include <unistd.h>

/* Agreement required, in percent of the files that state a title: the
 * kind alone and the kind with the function (issue 4 asks 95 % of both;
 * 98.4 % and 96.2 % are reached). */
#define KINDS_PCT 95
#define TITLES_PCT 95

#ifndef CORPUS_DIR
#define CORPUS_DIR "../shared/corpus"
#endif

static char corpus[2048];

static bool find_corpus(void)
{
	const char *env = getenv("SONDE_CORPUS");
	const char *cands[] = { env, CORPUS_DIR, "../shared/corpus",
				"/work/shared/corpus" };

	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		char p[4096];

		if (!cands[i])
			continue;
		snprintf(p, sizeof(p), "%s/linux-reports/syzkaller", cands[i]);
		if (!access(p, R_OK)) {
			snprintf(corpus, sizeof(corpus), "%s", cands[i]);
			return true;
		}
	}
	return false;
}

/* Syzkaller spells some kinds as older kernels printed them. */
static void norm_kind(const char *in, char *out, size_t len)
{
	static const char *const alias[][2] = {
		{ "BUG: unable to handle kernel NULL pointer dereference",
		  "BUG: kernel NULL pointer dereference" },
		{ "BUG: unable to handle kernel paging request",
		  "BUG: unable to handle page fault" },
	};
	size_t n;

	/* syzkaller writes numbers in titles as NUM */
	{
		size_t o = 0;

		for (const char *p = in; *p && o + 4 < len; p++) {
			if (isdigit((unsigned char)*p) &&
			    (p == in || !isalnum((unsigned char)p[-1]) ||
			     p[-1] == 'x')) {
				while (isalnum((unsigned char)p[1]))
					p++;
				memcpy(out + o, "NUM", 3);
				o += 3;
			} else {
				out[o++] = *p;
			}
		}
		out[o] = '\0';
		if (strstr(in, "NUM"))
			snprintf(out, len, "%s", in);
	}
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (!strcmp(out, alias[i][0]))
			snprintf(out, len, "%s", alias[i][1]);
	n = strlen(out);
	while (n && (out[n - 1] == '!' || out[n - 1] == ' '))
		out[--n] = '\0';
}

/* Syscall entry points without their wrapper prefix: syzkaller titles
 * name them as the syzkaller release of the file did (SyS_mount,
 * sys_mount, mount), so both sides are compared without it. */
static const char *unprefix(const char *f)
{
	static const char *const pre[] = {
		"compat_SYSC_", "compat_SyS_", "SYSC_", "SyS_", "__x64_",
		"__ia32_", "__arm64_", "____sys_", "___sys_", "__sys_",
		"__se_sys_", "__se_", "__do_sys_", "sys_", "ksys_",
	};

	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(f, pre[i], strlen(pre[i])))
			f += strlen(pre[i]);
	return f;
}

static bool same_func(const char *a, const char *b)
{
	char x[512], y[512];

	if (!a || !b)
		return a == b;
	if (strchr(a, '/') && !strchr(b, '/')) {	/* KCSAN: "f / g" */
		snprintf(x, sizeof(x), "%.*s", (int)strcspn(a, " "), a);
		return !strcmp(x, b);
	}
	if (strchr(b, '/') && !strchr(a, '/')) {	/* "f/usb_submit_urb" */
		snprintf(y, sizeof(y), "%.*s", (int)strcspn(b, "/"), b);
		return !strcmp(kp_func_base(a, x, sizeof(x)), y);
	}
	if (strchr(a, '/') || strchr(b, '/'))
		return !strcmp(a, b);
	return !strcmp(unprefix(kp_func_base(a, x, sizeof(x))),
		       unprefix(kp_func_base(b, y, sizeof(y))));
}

static void syzkaller_agrees(void **state)
{
	char dir[4096];
	DIR *d;
	struct dirent *e;
	int files = 0, stated = 0, agree = 0, kinds = 0;
	bool verbose = getenv("KP_VERBOSE") != NULL;

	(void)state;
	if (!find_corpus())
		skip();
	snprintf(dir, sizeof(dir), "%s/linux-reports/syzkaller", corpus);
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[8192 + 512], title[1024] = "", frame[512] = "";
		char want_kind[1024], got_kind[1024];
		char *buf, *body, *line, *in;
		struct kp_reports rs = { 0 };
		bool ok;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		buf = slurp(path);
		assert_non_null(buf);
		files++;
		/* header fields up to the first blank line */
		body = buf;
		for (line = buf; *line && *line != '\n';) {
			char *nl = strchr(line, '\n');
			size_t n = nl ? (size_t)(nl - line) : strlen(line);

			if (!strncmp(line, "TITLE: ", 7))
				snprintf(title, sizeof(title), "%.*s",
					 (int)n - 7, line + 7);
			if (!strncmp(line, "FRAME: ", 7))
				snprintf(frame, sizeof(frame), "%.*s",
					 (int)n - 7, line + 7);
			line = nl ? nl + 1 : line + n;
		}
		body = line;
		assert_int_equal(kp_linux_parse(body, strlen(body), &rs), 0);
		/* Titles that are no kernel report: syzkaller's own failures,
		 * its Go runtime, a reboot it noticed, Trusty's TEE asserts. */
		if (!title[0] || !strncmp(title, "SYZFAIL:", 8) ||
		    !strncmp(title, "go runtime", 10) ||
		    !strncmp(title, "unexpected kernel reboot", 24) ||
		    !strncmp(title, "trusty:", 7)) {
			kp_reports_free(&rs);
			free(buf);
			continue;
		}
		stated++;
		/* old KASAN titles end "in FUNC at addr ADDR" */
		{
			size_t tl = strlen(title);

			if (tl > 13 && !strcmp(title + tl - 13, " at addr ADDR"))
				title[tl - 13] = '\0';
		}
		/* "KIND in FUNC": the last " in " splits them; or the one
		 * before the stated FRAME, which may hold spaces (Rust's
		 * "<T as Trait>::f") */
		in = NULL;
		for (char *p = strstr(title, " in "); p; p = strstr(p + 1, " in "))
			in = p;
		{
			size_t tl = strlen(title), fl = strlen(frame);

			if (fl && tl > fl + 4 &&
			    !strcmp(title + tl - fl, frame) &&
			    !strncmp(title + tl - fl - 4, " in ", 4)) {
				title[tl - fl - 4] = '\0';
				in = NULL;
			}
		}
		if (in && !strchr(in + 4, ' ') ) {
			if (!frame[0] && strcmp(in + 4, "corrupted"))
				snprintf(frame, sizeof(frame), "%s", in + 4);
			*in = '\0';
		} else if (in && strstr(title, "KCSAN")) {
			if (!frame[0])
				snprintf(frame, sizeof(frame), "%s", in + 4);
			*in = '\0';
		}
		if (!strcmp(frame, "corrupted"))
			frame[0] = '\0';
		norm_kind(title, want_kind, sizeof(want_kind));
		ok = rs.n > 0;
		if (ok) {
			norm_kind(rs.v[0].kind, got_kind, sizeof(got_kind));
			ok = !strcmp(got_kind, want_kind);
			/* old KASAN titles carry no Read/Write */
			if (!ok && !strncmp(want_kind, "KASAN: ", 7) &&
			    !strchr(want_kind + 7, ' ')) {
				size_t wl = strlen(want_kind);

				ok = !strncmp(got_kind, want_kind, wl) &&
				     (!strcmp(got_kind + wl, " Read") ||
				      !strcmp(got_kind + wl, " Write"));
			}
			kinds += ok;
			ok = ok && (!frame[0] ||
				    same_func(rs.v[0].culprit, frame));
		}
		if (ok)
			agree++;
		else if (verbose)
			printf("# %s: want \"%s\" in %s, got \"%s\"\n",
			       e->d_name, want_kind, frame[0] ? frame : "-",
			       rs.n ? rs.v[0].title : "(no report)");
		kp_reports_free(&rs);
		free(buf);
	}
	closedir(d);
	printf("# syzkaller: %d files, %d state a title; kind agrees for %d "
	       "(%.1f %%), kind and function for %d (%.1f %%)\n", files,
	       stated, kinds, stated ? 100.0 * kinds / stated : 0, agree,
	       stated ? 100.0 * agree / stated : 0);
	assert_true(stated > 0);
	assert_true(kinds * 100 >= stated * KINDS_PCT);
	assert_true(agree * 100 >= stated * TITLES_PCT);
}

static void satyr_agrees(void **state)
{
	char path[8192 + 600], *exp;
	int stated = 0, agree = 0;

	(void)state;
	if (!find_corpus())
		skip();
	snprintf(path, sizeof(path),
		 "%s/linux-reports/satyr/EXPECTED_koops_stacktrace.c.txt",
		 corpus);
	exp = slurp(path);
	assert_non_null(exp);
	for (char *l = strstr(exp, "{\"kerneloopses/"); l;
	     l = strstr(l + 1, "{\"kerneloopses/")) {
		char name[200], first[256], last[256], *buf;
		struct kp_reports rs = { 0 };
		bool ok;

		if (sscanf(l, "{\"kerneloopses/%199[^\"]\", %255[^,], %255[^,],",
			   name, first, last) != 3)
			continue;
		snprintf(path, sizeof(path), "%s/linux-reports/satyr/%s.txt",
			 corpus, name);
		if (!(buf = slurp(path)))
			continue;	/* not every file was kept */
		stated++;
		assert_int_equal(kp_linux_parse(buf, strlen(buf), &rs), 0);
		ok = rs.n > 0 && rs.v[0].nframes > 0;
		if (ok) {
			const struct kp_report *r = &rs.v[0];
			const struct kp_frame *f0 = &r->frames[0], *fl;

			/* satyr reads frames with an address: a 4.x+
			 * "RIP: 0010:func+0x1/0x2" line is none of them */
			if (f0->pc && !f0->has_addr && r->nframes > 1)
				f0++;
			fl = f0;
			char a[256], b[256];

			for (size_t i = 0; i < r->nframes; i++)
				if (r->frames[i].stack == f0->stack)
					fl = &r->frames[i];
			snprintf(a, sizeof(a), "\"%s\"", f0->sym ? f0->sym : "");
			snprintf(b, sizeof(b), "\"%s\"", fl->sym ? fl->sym : "");
			ok = (!strcmp(first, "NULL") ? !f0->sym :
			      same_func(a, first)) &&
			     (!strcmp(last, "NULL") ? !fl->sym :
			      same_func(b, last));
			if (!ok && getenv("KP_VERBOSE"))
				printf("# satyr %s: want %s .. %s, got %s .. %s\n",
				       name, first, last, a, b);
		}
		agree += ok;
		kp_reports_free(&rs);
		free(buf);
	}
	free(exp);
	printf("# satyr: %d files, %d agree (%.1f %%)\n", stated, agree,
	       stated ? 100.0 * agree / stated : 0);
	assert_true(stated > 0);
	assert_true(agree * 100 >= stated * 95);
}

/* Every file parses, and every frame the parser returns is well formed. */
static void every_file_parses(void **state)
{
	const char *sub[] = { "linux-reports/syzkaller", "linux-reports/satyr" };
	int files = 0, reports = 0, frames = 0;

	(void)state;
	if (!find_corpus())
		skip();
	for (size_t s = 0; s < 2; s++) {
		char dir[8192];
		DIR *d;
		struct dirent *e;

		snprintf(dir, sizeof(dir), "%s/%s", corpus, sub[s]);
		assert_non_null(d = opendir(dir));
		while ((e = readdir(d))) {
			char path[8192 + 512], *buf;
			struct kp_reports rs = { 0 };

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			assert_non_null(buf = slurp(path));
			assert_int_equal(kp_linux_parse(buf, strlen(buf), &rs), 0);
			files++;
			reports += (int)rs.n;
			for (size_t i = 0; i < rs.n; i++) {
				const struct kp_report *r = &rs.v[i];

				assert_non_null(r->kind);
				assert_non_null(r->title);
				for (size_t j = 0; j < r->nframes; j++) {
					const struct kp_frame *f = &r->frames[j];

					assert_true(f->sym || f->has_addr);
					assert_true(f->stack >= 0 &&
						    (size_t)f->stack < r->nstacks);
					assert_true(f->line >= r->first_line);
					frames++;
				}
			}
			kp_reports_free(&rs);
			free(buf);
		}
		closedir(d);
	}
	printf("# %d files, %d reports, %d frames\n", files, reports, frames);
	assert_true(files > 500);
}

/* macOS panics: every sample is detected and parsed; the frames, slides
 * and kexts of two are checked against what the files say. */
static void macos_panics(void **state)
{
	static const char *const files[] = {
		"ips-json-ios14.6-panic-full-TRUNCATED-BY-AUTHOR.ips.txt",
		"text-arm64-15.4-24E248-T6020-lr-fp.panic.txt",
		"text-x86_64-10.14-CFLFramebuffer-divide-error-unsymbolicated.panic.txt",
		"text-x86_64-10.14-IOUSBFamily-symbolicated.panic.txt",
		"text-x86_64-14.2-23C71-watchdog-unsymbolicated.panic.txt",
		"syzkaller-darwin-report-0.txt",
	};

	(void)state;
	if (!find_corpus())
		skip();
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[4096];
		char *buf;
		struct kp_reports rs = { 0 };
		const struct kp_report *r;

		snprintf(path, sizeof(path), "%s/macos-panics/%s", corpus,
			 files[i]);
		assert_non_null(buf = slurp(path));
		assert_true(kp_macos_detect(buf, strlen(buf)));
		assert_int_equal(kp_macos_parse(buf, strlen(buf), &rs), 0);
		assert_int_equal(rs.n, 1);
		r = &rs.v[0];
		assert_true(r->macos);
		assert_string_equal(r->kind, "panic");
		assert_true(r->nframes >= 4);
		if (i == 4) {	/* Intel, macOS 14 */
			assert_string_equal(r->os_build, "23C71");
			assert_true(r->has_slide && r->slide == 0xc0e0000);
			assert_int_equal(r->nframes, 18);
			assert_true(r->frames[0].addr == 0xffffff800c436c41ull);
			assert_int_equal(r->nkexts, 1);
			assert_string_equal(r->kexts[0].bundle,
					    "com.apple.driver.watchdog");
			assert_string_equal(r->kexts[0].uuid,
					    "F1797B78-7645-3FC6-AD29-624DD0826DA0");
			assert_true(r->kexts[0].start == 0xffffff800f08e000ull &&
				    r->kexts[0].end == 0xffffff800f090fffull);
		}
		if (i == 1) {	/* Apple silicon: lr frames, exec slide */
			assert_string_equal(r->os_build, "24E248");
			assert_true(r->exec_slide && r->slide == 0x1625c000);
			assert_true(r->frames[0].addr == 0xfffffe001d2c0ae0ull);
		}
		if (i == 3) {	/* symbolicated */
			assert_string_equal(r->frames[0].sym,
					    "_handle_debugger_trap");
			assert_true(r->frames[0].off == 0x48d);
			assert_string_equal(r->frames[8].module,
					    "com.apple.iokit.IOUSBFamily");
		}
		if (i == 0)	/* JSON: panicString decoded */
			assert_string_equal(r->os_build, "18F72");
		kp_reports_free(&rs);
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_file_parses),
		cmocka_unit_test(syzkaller_agrees),
		cmocka_unit_test(satyr_agrees),
		cmocka_unit_test(macos_panics),
	};

	return RUN(tests);
}
