/* Unit tests of daemon/memcap.c: sizes, the floor, the cgroup walk and
 * the move into a cgroup, on a fake cgroupfs tree under a temp dir. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "memcap.h"
#include "memneed.h"
#include "tmpdir.h"

#define MIB	(1024ULL * 1024)
#define HUGE_V1	"9223372036854771712"	/* v1's "unlimited" */

struct fake {
	char	dir[64];
	char	root[96];	/* the cgroupfs */
	char	proc[96];	/* its /proc/self/cgroup */
};

static void
put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* root/rel/name holds text; the directories are made. */
static void
put_at(struct fake *f, const char *rel, const char *name, const char *text)
{
	char path[512], cmd[600];

	snprintf(path, sizeof(path), "%s/%s", f->root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	assert_int_equal(system(cmd), 0);
	if (name != NULL) {
		snprintf(path, sizeof(path), "%s/%s/%s", f->root, rel, name);
		put(path, text);
	}
}

static void
slurp(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	size_t n;

	assert_non_null(fp);
	n = fread(buf, 1, len - 1, fp);
	buf[n] = '\0';
	fclose(fp);
}

static int
setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));

	if (f == NULL || tmpdir_make(f->dir, sizeof(f->dir), "memcap") == -1)
		return -1;
	snprintf(f->root, sizeof(f->root), "%s/cg", f->dir);
	snprintf(f->proc, sizeof(f->proc), "%s/cgroup", f->dir);
	mkdir(f->root, 0755);
	memcap_set_paths(f->root, f->proc);
	unsetenv("INVOCATION_ID");
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fake *f = *state;

	memcap_teardown();
	tmpdir_remove(f->dir);
	free(f);
	return 0;
}

/* A v1 host like this one: the daemon in memory:/a/b. */
static void
fake_v1(struct fake *f, const char *limit_a)
{
	put(f->proc, "9:name=systemd:/\n4:memory:/a/b\n1:cpu:/\n0::/\n");
	put_at(f, "memory", "memory.limit_in_bytes", HUGE_V1);
	put_at(f, "memory/a", "memory.limit_in_bytes", limit_a);
	put_at(f, "memory/a/b", "memory.limit_in_bytes", HUGE_V1);
	put_at(f, "memory/a/b", "cgroup.procs", "");
}

static void
test_parse_size(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(memcap_parse_size("512M", &v), 0);
	assert_true(v == 512 * MIB);
	assert_int_equal(memcap_parse_size("2G", &v), 0);
	assert_true(v == 2048 * MIB);
	assert_int_equal(memcap_parse_size("2g", &v), 0);
	assert_true(v == 2048 * MIB);
	assert_int_equal(memcap_parse_size("96MiB", &v), 0);
	assert_true(v == 96 * MIB);
	assert_int_equal(memcap_parse_size("100000000", &v), 0);
	assert_true(v == 100000000);
	assert_int_equal(memcap_parse_size("65536K", &v), 0);
	assert_true(v == 64 * MIB);
	assert_int_equal(memcap_parse_size("1T", &v), 0);
	assert_true(v == 1024 * 1024 * MIB);
	assert_int_equal(memcap_parse_size("", &v), -1);
	assert_int_equal(memcap_parse_size("M", &v), -1);
	assert_int_equal(memcap_parse_size("0", &v), -1);
	assert_int_equal(memcap_parse_size("-1G", &v), -1);
	assert_int_equal(memcap_parse_size("1.5G", &v), -1);
	assert_int_equal(memcap_parse_size("12X", &v), -1);
	assert_int_equal(memcap_parse_size("5 M", &v), -1);
	assert_int_equal(memcap_parse_size("99999999999T", &v), -1);
	assert_int_equal(memcap_parse_size("18446744073709551616", &v), -1);
}

/* Below the floor: refused, naming the option and the floor, before
 * anything is made. */
static void
test_floor(void **state)
{
	struct fake *f = *state;
	char err[512], own[256];

	fake_v1(f, HUGE_V1);
	assert_int_equal(memcap_init(MEMCAP_FLOOR - 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--memory-max"));
	assert_non_null(strstr(err, "64 MiB"));
	snprintf(own, sizeof(own), "%s/memory/a/b/stressd-%d", f->root,
	    (int)getpid());
	assert_int_equal(access(own, F_OK), -1);
}

/* v1: the least limit along the path, and who set it. */
static void
test_walk_v1(void **state)
{
	struct fake *f = *state;
	uint64_t lim;
	char src[256];

	fake_v1(f, "209715200");
	assert_true(memcap_effective(&lim, src, sizeof(src)));
	assert_true(lim == 200 * MIB);
	assert_non_null(strstr(src, "memory.limit_in_bytes"));
	assert_non_null(strstr(src, " /a"));
	assert_null(strstr(src, "/a/b"));
	assert_true(memcap_clamp_available(1024 * MIB) == 200 * MIB);
	assert_true(memcap_clamp_available(50 * MIB) == 50 * MIB);
}

/* v1 with every limit "unlimited": no cap, null in the JSON. */
static void
test_walk_none(void **state)
{
	struct fake *f = *state;
	json_object *o, *v;
	uint64_t lim;

	fake_v1(f, HUGE_V1);
	assert_false(memcap_effective(&lim, NULL, 0));
	assert_true(memcap_clamp_available(1024 * MIB) == 1024 * MIB);
	o = memcap_json();
	assert_true(json_object_object_get_ex(o, "limit_bytes", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(o, "source", &v));
	assert_null(v);
	json_object_put(o);
}

/* v2: memory.max along the unified path, "max" meaning none. */
static void
test_walk_v2(void **state)
{
	struct fake *f = *state;
	json_object *o, *v;

	put(f->proc, "0::/system.slice/stressd.service\n");
	put_at(f, ".", "cgroup.controllers", "cpu io memory pids\n");
	put_at(f, "system.slice", "memory.max", "max\n");
	put_at(f, "system.slice/stressd.service", "memory.max", "104857600\n");
	o = memcap_json();
	assert_true(json_object_object_get_ex(o, "limit_bytes", &v));
	assert_int_equal(json_object_get_int64(v), 100 * MIB);
	assert_true(json_object_object_get_ex(o, "source", &v));
	assert_string_equal(json_object_get_string(v),
	    "cgroup v2 memory.max of /system.slice/stressd.service");
	json_object_put(o);
}

/* v1: a child of the daemon's cgroup with the limit, the daemon moved
 * into it; the JSON says it was --memory-max; teardown moves it back. */
static void
test_init_v1(void **state)
{
	struct fake *f = *state;
	char err[512], path[256], buf[64], pid[32];
	json_object *o, *v;

	fake_v1(f, HUGE_V1);
	assert_int_equal(memcap_init(96 * MIB, err, sizeof(err)), 0);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(path, sizeof(path), "%s/memory/a/b/stressd-%s/"
	    "memory.limit_in_bytes", f->root, pid);
	slurp(path, buf, sizeof(buf));
	assert_true(strtoull(buf, NULL, 10) == 96 * MIB);
	snprintf(path, sizeof(path), "%s/memory/a/b/stressd-%s/cgroup.procs",
	    f->root, pid);
	slurp(path, buf, sizeof(buf));
	assert_true(atoi(buf) == getpid());
	/* The fake /proc/self/cgroup follows, as the kernel's would. */
	snprintf(buf, sizeof(buf), "4:memory:/a/b/stressd-%s\n", pid);
	put(f->proc, buf);
	o = memcap_json();
	assert_true(json_object_object_get_ex(o, "limit_bytes", &v));
	assert_int_equal(json_object_get_int64(v), 96 * MIB);
	assert_true(json_object_object_get_ex(o, "source", &v));
	assert_non_null(strstr(json_object_get_string(v),
	    "stressd --memory-max"));
	assert_non_null(strstr(json_object_get_string(v), "/a/b/stressd-"));
	json_object_put(o);
	memcap_teardown();
	snprintf(path, sizeof(path), "%s/memory/a/b/cgroup.procs", f->root);
	slurp(path, buf, sizeof(buf));
	assert_true(atoi(buf) == getpid());
}

/* A pid no process has now. */
static long
dead_pid(void)
{
	for (long pid = 4194303; pid > 1; pid--)
		if (kill((pid_t)pid, 0) == -1 && errno == ESRCH)
			return pid;
	fail();
	return -1;
}

/* The empty cgroup of a stressd that is gone goes; a live one's stays. */
static void
test_reap_stale(void **state)
{
	struct fake *f = *state;
	char err[512], dead[256], live[256];

	fake_v1(f, HUGE_V1);
	snprintf(dead, sizeof(dead), "%s/memory/a/b/stressd-%ld", f->root,
	    dead_pid());
	snprintf(live, sizeof(live), "%s/memory/a/b/stressd-%ld", f->root,
	    (long)getppid());
	assert_int_equal(mkdir(dead, 0755), 0);
	assert_int_equal(mkdir(live, 0755), 0);
	assert_int_equal(memcap_init(96 * MIB, err, sizeof(err)), 0);
	assert_int_equal(access(dead, F_OK), -1);
	assert_int_equal(access(live, F_OK), 0);
}

/* Under systemd: refused with MemoryMax=, nothing made. */
static void
test_systemd(void **state)
{
	struct fake *f = *state;
	char err[512], own[256];

	fake_v1(f, HUGE_V1);
	setenv("INVOCATION_ID", "0123456789abcdef", 1);
	assert_int_equal(memcap_init(96 * MIB, err, sizeof(err)), -1);
	unsetenv("INVOCATION_ID");
	assert_non_null(strstr(err, "MemoryMax="));
	assert_non_null(strstr(err, "--memory-max"));
	put(f->proc, "9:name=systemd:/system.slice/stressd.service\n"
	    "4:memory:/a/b\n");
	assert_int_equal(memcap_init(96 * MIB, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "MemoryMax="));
	snprintf(own, sizeof(own), "%s/memory/a/b/stressd-%d", f->root,
	    (int)getpid());
	assert_int_equal(access(own, F_OK), -1);
}

/* No memory controller at all; v2 without memory for the root's
 * children. */
static void
test_no_controller(void **state)
{
	struct fake *f = *state;
	char err[512];

	put(f->proc, "1:cpu:/\n0::/\n");
	assert_int_equal(memcap_init(96 * MIB, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--memory-max"));
	assert_non_null(strstr(err, "memory controller"));
	put(f->proc, "0::/user.slice\n");
	put_at(f, ".", "cgroup.controllers", "cpu io memory\n");
	put_at(f, ".", "cgroup.subtree_control", "cpu io\n");
	assert_int_equal(memcap_init(96 * MIB, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cgroup.subtree_control"));
}

/* v2: /stressd-<pid> under the root, memory.max. */
static void
test_init_v2(void **state)
{
	struct fake *f = *state;
	char err[512], path[256], buf[64];

	put(f->proc, "0::/user.slice\n");
	put_at(f, ".", "cgroup.controllers", "cpu io memory\n");
	put_at(f, ".", "cgroup.subtree_control", "io memory\n");
	put_at(f, "user.slice", "cgroup.procs", "");
	assert_int_equal(memcap_init(128 * MIB, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/stressd-%d/memory.max", f->root,
	    (int)getpid());
	slurp(path, buf, sizeof(buf));
	assert_true(strtoull(buf, NULL, 10) == 128 * MIB);
	memcap_teardown();
	snprintf(path, sizeof(path), "%s/user.slice/cgroup.procs", f->root);
	slurp(path, buf, sizeof(buf));
	assert_true(atoi(buf) == getpid());
}

/* A run's queue under a 96 MiB cap: 32 MiB is all it may have. */
static void
test_queue(void **state)
{
	struct fake *f = *state;
	char err[512];
	uint64_t q;

	fake_v1(f, "100663296");
	q = 32;
	assert_int_equal(memcap_check_queue(&q, true, err, sizeof(err)), 0);
	assert_true(q == 32);
	q = 33;
	assert_int_equal(memcap_check_queue(&q, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "queue_memory_max"));
	assert_non_null(strstr(err, "33 MiB"));
	assert_non_null(strstr(err, "96 MiB"));
	assert_non_null(strstr(err, "64 MiB"));
	q = 0;
	assert_int_equal(memcap_check_queue(&q, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unbounded"));
	q = 256;	/* a default: lowered to fit */
	assert_int_equal(memcap_check_queue(&q, false, err, sizeof(err)), 0);
	assert_true(q == 32);
	fake_v1(f, HUGE_V1);
	q = 0;
	assert_int_equal(memcap_check_queue(&q, true, err, sizeof(err)), 0);
}

/* What a run may hold under a 160 MiB cap, and its needs against it:
 * the file table, the update file's values, the writers' batches, the
 * queue's bound (lowered when it is the default, refused when given). */
static void
test_needs(void **state)
{
	struct fake *f = *state;
	struct memneed m;
	/* 4 Mi values (32 MiB), 10 files, 2 writers of 1 MiB batches */
	struct memneed_run r = { 10, 4 << 20, 2, MIB };
	const char *field = NULL;
	char err[1024];
	uint64_t q, held = memcap_held(), keep;

	fake_v1(f, "167772160");
	keep = held > MEMCAP_FLOOR ? held : MEMCAP_FLOOR;
	assert_true(held > 0);
	memneed_init(&m);
	assert_true(m.capped);
	assert_true(m.room == 160 * MIB - keep);
	assert_non_null(strstr(m.why, "the memory cap of 160 MiB"));
	assert_int_equal(memneed_file_bytes(), 80);
	assert_int_equal(memneed_check_files(&m, 10000, err, sizeof(err)), 0);
	assert_int_equal(memneed_check_files(&m, 10000000, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "files 10000000: the file table needs "
	    "about 763 MiB (80 bytes a file)"));
	assert_non_null(strstr(err, "160 MiB"));
	q = 256;	/* the default: what the rest leaves */
	assert_int_equal(memneed_check_load(&m, &r, &q, true, &field, err,
	    sizeof(err)), 0);
	assert_true(q == (m.room - 34 * MIB - 800) >> 20);
	q = 80;
	assert_int_equal(memneed_check_load(&m, &r, &q, false, &field, err,
	    sizeof(err)), -1);
	assert_string_equal(field, "queue_memory_max");
	assert_non_null(strstr(err, "queue_memory_max 80 MiB"));
	assert_non_null(strstr(err, "4194304 values (32 MiB"));
	assert_non_null(strstr(err, "2 writers (2 MiB at most)"));
	q = 0;
	assert_int_equal(memneed_check_load(&m, &r, &q, false, &field, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "unbounded"));
	/* The rest leaves no MiB for the queue: the largest part is named. */
	r.files = (m.room - 34 * MIB - 65536) / 80;
	assert_int_equal(memneed_check_load(&m, &r, &q, true, &field, err,
	    sizeof(err)), -1);
	assert_string_equal(field, "files");
	r.files = 10;
	r.writers = 1024;
	assert_int_equal(memneed_check_load(&m, &r, &q, true, &field, err,
	    sizeof(err)), -1);
	assert_string_equal(field, "write_threads");
	/* No cap: nothing is refused, nothing lowered. */
	fake_v1(f, HUGE_V1);
	memneed_init(&m);
	assert_false(m.capped);
	assert_int_equal(memneed_check_files(&m, 10000000, err, sizeof(err)),
	    0);
	q = 0;
	assert_int_equal(memneed_check_load(&m, &r, &q, false, &field, err,
	    sizeof(err)), 0);
	assert_true(q == 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test_setup_teardown(test_floor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_v2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reap_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_systemd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_controller, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_init_v2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_needs, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
