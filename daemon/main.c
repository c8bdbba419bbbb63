/* stressd: the RRD storage stress daemon.  Foreground, no fork; libevent
 * owns the control connections, threads are only writers and generators. */
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <systemd/sd-daemon.h>

#include "config.h"
#include "capacity.h"
#include "cmd.h"
#include "conffile.h"
#include "control.h"
#include "exposition.h"
#include "fdreserve.h"
#include "job.h"
#include "jobrun.h"
#include "lifecycle.h"
#include "log.h"
#include "memcap.h"
#include "prom.h"
#include "proto.h"
#include "rrdfile.h"
#include "run.h"
#include "runsindex.h"
#include "sweep.h"
#include "util.h"

#define TICK_USEC	50000	/* state machine and waiter replies */

static struct event_base	*base;
static double			 last_status;
static double			 exit_deadline;	/* flushing final replies */
static double			 watchdog_s;	/* WATCHDOG_USEC, 0: off */
static double			 drain_timeout = 60;	/* --drain-timeout */
static double			 shutdown_at;	/* monotonic s of the first signal */
static bool			 drain_abandoned;
static uint64_t			 drain_progress;	/* updates done, last look */

/* The configuration in force and a second one that SIGHUP loads into. */
static struct config		 cfg_a, cfg_b, *cfg = &cfg_a;
static const char		*config_path = STRESSD_CONFIG_FILE;
static bool			 config_explicit;

/* What the command line set: it wins over the configuration file. */
static struct {
	const char	*socket, *state_dir, *metrics;
	int		 log_level;	/* -1: not given */
	double		 drain_timeout;	/* < 0: not given */
	uint64_t	 memory_max;	/* 0: not given */
} ov = { NULL, NULL, NULL, -1, -1, 0 };
/* --client-idle-timeout: seconds a silent control client is kept. */
static double			 client_idle_s = CONTROL_IDLE_S;

static void
apply_overrides(struct config *c)
{
	if (ov.socket != NULL)
		snprintf(c->socket, sizeof(c->socket), "%s", ov.socket);
	if (ov.state_dir != NULL)
		snprintf(c->state_dir, sizeof(c->state_dir), "%s",
		    ov.state_dir);
	if (ov.metrics != NULL)
		snprintf(c->metrics_listen, sizeof(c->metrics_listen), "%s",
		    ov.metrics);
	if (ov.log_level >= 0)
		c->log_level = ov.log_level;
	if (ov.drain_timeout >= 0)
		c->drain_timeout = ov.drain_timeout;
	if (ov.memory_max > 0)
		c->memory_max = ov.memory_max;
}

/* SIGHUP: reopen the running run's stress.log (logrotate's postrotate,
 * as for rsyslog and nginx: one signal, no client needed), then re-read
 * the file for later runs; a bad file changes nothing. */
static void
on_hup(evutil_socket_t sig, short what, void *arg)
{
	struct config *next = cfg == &cfg_a ? &cfg_b : &cfg_a;
	char err[1024];

	(void)sig;
	(void)what;
	(void)arg;
	run_reopen_log(lifecycle_run());
	if (conffile_load(next, config_path, err, sizeof(err)) == -1) {
		log_warnx("SIGHUP: %s; keeping the configuration in force",
		    err);
		conffile_free(next);
		return;
	}
	apply_overrides(next);
	log_info("SIGHUP: re-read %s (applies to runs started from now; "
	    "socket, socket_mode, socket_group, state_dir, metrics_listen "
	    "and memory_max at restart)", config_path);
	conffile_log_changes(cfg, next);
	lifecycle_set_config(next);
	conffile_free(cfg);
	cfg = next;
	log_init((enum log_level)cfg->log_level);
	drain_timeout = cfg->drain_timeout;
}
static double			 last_watchdog;
static bool			 watchdog_held;

/* How long the final replies (to wait and stop) may take to leave. */
#define EXIT_FLUSH_SECONDS	2.0

/* --memory-max SIZE into ov; 0, or -1 said on stderr.  The floor is
 * checked here, not only by memcap_init: --check-config refuses what a
 * start would. */
static int
parse_memory_max(const char *arg)
{
	char err[256];

	if (memcap_parse_size(arg, &ov.memory_max) == -1) {
		fprintf(stderr, "stressd: --memory-max: '%s' is not a size "
		    "(bytes, or with K, M, G or T: 512M, 2G)\n", arg);
		return -1;
	}
	if (memcap_check_floor(ov.memory_max, err, sizeof(err)) == -1) {
		fprintf(stderr, "stressd: %s\n", err);
		return -1;
	}
	return 0;
}

static void
usage(FILE *fp)
{
	fprintf(fp,
"usage: stressd [--config FILE] [--check-config] [--socket PATH]\n"
"               [--state-dir DIR] [--log-level LEVEL] [--drain-timeout SECONDS]\n"
"               [--metrics-listen [ADDR:]PORT] [--client-idle-timeout SECONDS]\n"
"               [--memory-max SIZE]\n"
"\n"
"Stress-test RRD storage: a daemon that runs load generators and a pool of\n"
"writer threads behind a per-file queue, driven by stressctl(1).\n"
"\n"
"  -c, --config FILE      configuration file (default %s; without it,\n"
"                         runs may write anywhere)\n"
"      --check-config     validate the configuration, print it, exit\n"
"                         (0, or 2 with FILE:LINE: message)\n"
"  -s, --socket PATH      control socket (default %s)\n"
"  -d, --state-dir DIR    run records go to DIR/runs/<id> (default %s)\n"
"  -l, --log-level LEVEL  err, warn, info (default) or debug\n"
"  -t, --drain-timeout SECONDS\n"
"                         at shutdown, drain the queue at most this long,\n"
"                         then discard the rest (default 60)\n"
"  -m, --metrics-listen [ADDR:]PORT\n"
"                         serve Prometheus metrics at GET /metrics (ADDR\n"
"                         defaults to 127.0.0.1; [::1]:PORT for IPv6)\n"
"      --client-idle-timeout SECONDS\n"
"                         close a control client that sends nothing this\n"
"                         long (default 60; 0: never)\n"
"      --memory-max SIZE  run in a new cgroup whose memory (the page cache\n"
"                         too) is capped at SIZE (512M, 2G; at least 64M),\n"
"                         so that a run's files need not fit in memory;\n"
"                         as a systemd service use MemoryMax= instead\n"
"  -h, --help             this text\n"
"  -V, --version          print the version and exit\n"
"\n"
"Runs in the foreground and logs to stderr.  SIGTERM or SIGINT stops the\n"
"current run, drains its queue and exits 0; a second signal, or a drain\n"
"longer than --drain-timeout, discards what is still queued (counted as\n"
"dropped).  SIGHUP re-reads the configuration for later runs.  Options\n"
"given here override the file.  Exit status: 0 clean exit, 1 startup\n"
"error or a drain cut short, 2 usage or configuration error.\n",
	    STRESSD_CONFIG_FILE, STRESSD_DEFAULT_SOCKET,
	    STRESSD_DEFAULT_STATE_DIR);
}

/* The first signal drains the run, a second discards its queue; the
 * shutdown state itself is the lifecycle's. */
static void
on_signal(evutil_socket_t sig, short what, void *arg)
{
	bool again = lifecycle_shutting_down();
	char why[128];

	(void)what;
	(void)arg;
	log_info("%s: %s", strsignal((int)sig), again ?
	    "discarding the queue" : "stopping the run and draining");
	sd_notify(0, "STOPPING=1");
	/* Overwritten by a later discard, so "drained" is what happened. */
	snprintf(why, sizeof(why), "%s SIG%s at shutdown: queue %s",
	    again ? "a second" : "stopped by", sigabbrev_np((int)sig),
	    again ? "discarded" : "drained");
	lifecycle_shutdown(!again, why);
	if (!again)
		shutdown_at = util_now();
	else
		drain_abandoned = true;	/* the queue is discarded */
}

/*
 * While the run drains at shutdown: tell systemd to wait longer as long as
 * the drain makes progress, and give up after drain_timeout, discarding
 * (and counting as dropped) what is left; the exit status then says so.
 */
static void
drain_watch(double now)
{
	uint64_t done = lifecycle_updates_done();
	char why[160];

	if (!drain_abandoned && now - shutdown_at > drain_timeout) {
		log_warnx("the drain took longer than %.0f s (--drain-timeout): "
		    "discarding what is still queued", drain_timeout);
		snprintf(why, sizeof(why), "the drain at shutdown took longer "
		    "than %.0f s (--drain-timeout): queue discarded",
		    drain_timeout);
		lifecycle_shutdown(false, why);
		drain_abandoned = true;
	}
	if (done != drain_progress) {
		/* 5 s more each time the drain is seen to move. */
		sd_notify(0, "EXTEND_TIMEOUT_USEC=5000000");
		drain_progress = done;
	}
}

static void
on_tick(evutil_socket_t fd, short what, void *arg)
{
	double now = util_now();

	(void)fd;
	(void)what;
	(void)arg;
	lifecycle_tick();
	/* The watchdog is fed from the loop, and only while no writer has
	 * sat inside librrd for a whole watchdog period: a stuck writer must
	 * get the service restarted, not hidden by a timer. */
	if (watchdog_s > 0 && now - last_watchdog >= watchdog_s / 2) {
		if (!lifecycle_stuck(watchdog_s / 2)) {
			sd_notify(0, "WATCHDOG=1");
			watchdog_held = false;
		} else if (!watchdog_held) {
			log_warnx("a thread has been inside librrd for over "
			    "%.1f s; not feeding the watchdog", watchdog_s / 2);
			watchdog_held = true;
		}
		last_watchdog = now;
	}
	if (now - last_status >= 1.0) {
		char line[256];

		lifecycle_summary(line, sizeof(line));
		sd_notifyf(0, "STATUS=%s", line);
		last_status = now;
		if (lifecycle_shutting_down() && !lifecycle_quiescent())
			drain_watch(now);
	}
	if (!lifecycle_shutting_down() || !lifecycle_quiescent())
		return;
	/* The run has ended and its waiters were answered: stop accepting,
	 * let the replies leave, then exit. */
	if (exit_deadline == 0) {
		control_stop_accepting();
		exit_deadline = now + EXIT_FLUSH_SECONDS;
	}
	if (!control_output_pending() || now >= exit_deadline)
		event_base_loopbreak(base);
}

/* The command line into ov, config_path and *check: -1 to go on, or the
 * exit status. */
static int
parse_options(int argc, char *argv[], bool *check)
{
	static const struct option opts[] = {
		{ "socket",	required_argument,	NULL, 's' },
		{ "state-dir",	required_argument,	NULL, 'd' },
		{ "log-level",	required_argument,	NULL, 'l' },
		{ "metrics-listen", required_argument,	NULL, 'm' },
		{ "drain-timeout", required_argument,	NULL, 't' },
		{ "client-idle-timeout", required_argument, NULL, 'I' },
		{ "memory-max",	required_argument,	NULL, 'M' },
		{ "config",	required_argument,	NULL, 'c' },
		{ "check-config", no_argument,		NULL, 'C' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int level, ch;

	while ((ch = getopt_long(argc, argv, "c:s:d:l:m:t:hV", opts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			config_path = optarg;
			config_explicit = true;
			break;
		case 'C':
			*check = true;
			break;
		case 's':
			if (strlen(optarg) >= sizeof(cfg->socket)) {
				fprintf(stderr, "stressd: --socket: path longer "
				    "than %zu bytes\n", sizeof(cfg->socket) - 1);
				return 2;
			}
			ov.socket = optarg;
			break;
		case 'd':
			if (strlen(optarg) >= sizeof(cfg->state_dir)) {
				fprintf(stderr, "stressd: --state-dir: path too "
				    "long\n");
				return 2;
			}
			ov.state_dir = optarg;
			break;
		case 'l':
			if ((level = log_level_parse(optarg)) == -1) {
				fprintf(stderr, "stressd: --log-level: unknown "
				    "level '%s' (err, warn, info, debug)\n",
				    optarg);
				return 2;
			}
			ov.log_level = level;
			break;
		case 'm':
			if (strlen(optarg) >= sizeof(cfg->metrics_listen)) {
				fprintf(stderr, "stressd: --metrics-listen: "
				    "address too long\n");
				return 2;
			}
			ov.metrics = optarg;
			break;
		case 't': {
			char *end;

			ov.drain_timeout = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' ||
			    !(ov.drain_timeout >= 0 &&
			    ov.drain_timeout <= 86400)) {
				fprintf(stderr, "stressd: --drain-timeout: '%s' "
				    "is not 0 to 86400 seconds\n", optarg);
				return 2;
			}
			break;
		}
		case 'I': {
			char *end;

			client_idle_s = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' ||
			    !(client_idle_s >= 0 && client_idle_s <= 86400)) {
				fprintf(stderr, "stressd: --client-idle-timeout: "
				    "'%s' is not 0 to 86400 seconds\n", optarg);
				return 2;
			}
			break;
		}
		case 'M':
			if (parse_memory_max(optarg) == -1)
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("stressd %s (protocol %d, librrd %s)\n",
			    PACKAGE_VERSION, PROTO_VERSION,
			    rrdfile_librrd_version());
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "stressd: unexpected argument '%s'\n",
		    argv[optind]);
		usage(stderr);
		return 2;
	}
	return -1;
}

/* The summaries runs lists, read once here, before the loop serves
 * anyone (as recovery reads the records), so that no request reads them
 * (issue 22). */
static void
fill_runs_index(const char *state_dir)
{
	double t0 = util_now();
	size_t bytes, n;

	if (runsindex_fill(state_dir) == -1)
		log_warnx("runs: out of memory indexing %s/runs; runs lists "
		    "part of the records", state_dir);
	n = runsindex_count(&bytes);
	log_info("runs: %zu records indexed in %.3f s (%zu KiB)", n,
	    util_now() - t0, bytes / 1024);
}

/* GET /metrics, when metrics_listen asks for it. */
static void
start_metrics(void)
{
	char err[1024];

	if (cfg->metrics_listen[0] != '\0') {
		if (prom_start(base, cfg->metrics_listen, exposition_render, NULL,
		    err, sizeof(err)) == -1) {
			control_shutdown();
			fatalx("metrics_listen %s: %s", cfg->metrics_listen, err);
		}
		log_info("serving metrics on %s (port %d)", cfg->metrics_listen,
		    prom_port());
	}
}

int
main(int argc, char *argv[])
{
	char err[1024];
	int rc;
	bool check = false, have_config = false;
	struct event *ev_term, *ev_int, *ev_hup, *ev_tick;
	struct timeval tick = { 0, TICK_USEC };
	uint64_t watchdog_usec;

	/*
	 * Each run allocates and frees blocks of about 1 MB (queue slabs, the
	 * sampler's buffer, librrd's for metrics.rrd).  glibc raises its mmap
	 * threshold past a block once one is freed, so later ones come from
	 * the heap and fragment it: RSS went from 11.8 to 20.1 MB over five
	 * runs with no leak.  A fixed threshold (glibc's initial one) gives
	 * them back at free: 12.2 MB after 275 runs (tests/soak.sh).
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);

	if ((rc = parse_options(argc, argv, &check)) != -1)
		return rc;
	/* Defaults, then the file (if any), then the command line. */
	conffile_defaults(cfg);
	if (config_explicit || access(config_path, F_OK) == 0) {
		if (conffile_load(cfg, config_path, err, sizeof(err)) == -1) {
			fprintf(stderr, "stressd: %s\n", err);
			return 2;
		}
		have_config = true;
	}
	apply_overrides(cfg);
	if (check) {
		conffile_print(cfg, stdout);
		conffile_free(cfg);
		return 0;
	}
	log_init((enum log_level)cfg->log_level);
	if (!have_config)
		log_warnx("no configuration file %s: runs may write wherever "
		    "stressd can", config_path);
	drain_timeout = cfg->drain_timeout;
	/* Before any thread or file: every thread starts in the cgroup. */
	if (cfg->memory_max > 0) {
		if (memcap_init(cfg->memory_max, err, sizeof(err)) == -1) {
			fprintf(stderr, "stressd: %s\n", err);
			conffile_free(cfg);
			return 2;
		}
		atexit(memcap_teardown);	/* fatalx's exit too */
	}
	signal(SIGPIPE, SIG_IGN);
	/* The writers' and engine's reserve is what no client may take, so
	 * a flood of connections never fails a write (fdbudget.h). */
	if (fdreserve_init(client_idle_s, PROM_DEADLINE_S, err,
	    sizeof(err)) == -1)
		fatalx("%s", err);
	evthread_use_pthreads();
	if ((base = event_base_new()) == NULL)
		fatalx("cannot create the event loop");
	/* The kinds of job, in the order report and runs ask them for a
	 * live record. */
	if (job_register(&jobrun_kind) == -1 ||
	    job_register(&capacity_kind) == -1 ||
	    job_register(&sweep_kind) == -1)
		fatalx("cannot register the job kinds");
	if (lifecycle_init(base, cfg->state_dir, cfg->socket) == -1)
		fatalx("state directory %s is not usable", cfg->state_dir);
	lifecycle_set_config(cfg);
	if (control_init(base, cfg->socket, cfg->socket_mode,
	    cfg->socket_group, cmd_dispatch) == -1)
		fatalx("cannot listen on %s", cfg->socket);
	/* Once the socket is ours (no other stressd serves this state) and
	 * before the loop serves it: runs and jobs a crash left active. */
	job_recover(cfg->state_dir, cfg);
	fill_runs_index(cfg->state_dir);
	start_metrics();
	ev_term = evsignal_new(base, SIGTERM, on_signal, NULL);
	ev_int = evsignal_new(base, SIGINT, on_signal, NULL);
	ev_hup = evsignal_new(base, SIGHUP, on_hup, NULL);
	ev_tick = event_new(base, -1, EV_PERSIST, on_tick, NULL);
	event_add(ev_term, NULL);
	event_add(ev_int, NULL);
	event_add(ev_hup, NULL);
	event_add(ev_tick, &tick);
	log_info("stressd %s ready, state in %s", PACKAGE_VERSION,
	    cfg->state_dir);
	if (sd_watchdog_enabled(0, &watchdog_usec) > 0)
		watchdog_s = (double)watchdog_usec / 1e6;
	sd_notify(0, "READY=1\nSTATUS=idle");

	event_base_dispatch(base);

	prom_stop();
	control_shutdown();
	lifecycle_finish();
	runsindex_free();
	event_free(ev_term);
	event_free(ev_int);
	event_free(ev_hup);
	conffile_free(cfg);
	event_free(ev_tick);
	event_base_free(base);
	memcap_teardown();
	log_info("exiting%s", drain_abandoned ? " (the drain was cut short)" :
	    "");
	return drain_abandoned ? 1 : 0;
}
