/* stressd: the RRD storage stress daemon.  Foreground, no fork; libevent
 * owns the control connections, threads are only writers and generators. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <systemd/sd-daemon.h>

#include "config.h"
#include "commands.h"
#include "control.h"
#include "log.h"
#include "prom.h"
#include "proto.h"
#include "rrdfile.h"
#include "util.h"

#define TICK_USEC	50000	/* state machine and waiter replies */

static struct event_base	*base;
static bool			 shutting_down;
static double			 last_status;
static double			 exit_deadline;	/* flushing final replies */
static double			 watchdog_s;	/* WATCHDOG_USEC, 0: off */
static double			 drain_timeout = 60;	/* --drain-timeout */
static double			 shutdown_at;	/* monotonic s of the first signal */
static bool			 drain_abandoned;
static uint64_t			 drain_progress;	/* updates done, last look */
static double			 last_watchdog;
static bool			 watchdog_held;

/* How long the final replies (to wait and stop) may take to leave. */
#define EXIT_FLUSH_SECONDS	2.0

static void
usage(FILE *fp)
{
	fprintf(fp,
"usage: stressd [--socket PATH] [--state-dir DIR] [--log-level LEVEL]\n"
"               [--drain-timeout SECONDS] [--metrics-listen [ADDR:]PORT]\n"
"\n"
"Stress-test RRD storage: a daemon that runs load generators and a pool of\n"
"writer threads behind a per-file queue, driven by stressctl(1).\n"
"\n"
"  -s, --socket PATH      control socket (default %s)\n"
"  -d, --state-dir DIR    run records go to DIR/runs/<id> (default %s)\n"
"  -l, --log-level LEVEL  err, warn, info (default) or debug\n"
"  -t, --drain-timeout SECONDS\n"
"                         at shutdown, drain the queue at most this long,\n"
"                         then discard the rest (default 60)\n"
"  -m, --metrics-listen [ADDR:]PORT\n"
"                         serve Prometheus metrics at GET /metrics (ADDR\n"
"                         defaults to 127.0.0.1; [::1]:PORT for IPv6)\n"
"  -h, --help             this text\n"
"  -V, --version          print the version and exit\n"
"\n"
"Runs in the foreground and logs to stderr.  SIGTERM or SIGINT stops the\n"
"current run, drains its queue and exits 0; a second signal, or a drain\n"
"longer than --drain-timeout, discards what is still queued (counted as\n"
"dropped).  Exit status: 0 clean exit, 1 startup error or a drain cut\n"
"short, 2 usage.\n",
	    STRESSD_DEFAULT_SOCKET, STRESSD_DEFAULT_STATE_DIR);
}

static void
on_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)what;
	(void)arg;
	log_info("%s: %s", strsignal((int)sig), shutting_down ?
	    "discarding the queue" : "stopping the run and draining");
	sd_notify(0, "STOPPING=1");
	commands_shutdown(!shutting_down);
	if (!shutting_down)
		shutdown_at = util_now();
	shutting_down = true;
}

/*
 * While the run drains at shutdown: tell systemd to wait longer as long as
 * the drain makes progress, and give up after drain_timeout, discarding
 * (and counting as dropped) what is left; the exit status then says so.
 */
static void
drain_watch(double now)
{
	uint64_t done = commands_updates_done();

	if (!drain_abandoned && now - shutdown_at > drain_timeout) {
		log_warnx("the drain took longer than %.0f s (--drain-timeout): "
		    "discarding what is still queued", drain_timeout);
		commands_shutdown(false);
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
	commands_tick();
	/* The watchdog is fed from the loop, and only while no writer has
	 * sat inside librrd for a whole watchdog period: a stuck writer must
	 * get the service restarted, not hidden by a timer. */
	if (watchdog_s > 0 && now - last_watchdog >= watchdog_s / 2) {
		if (!commands_stuck(watchdog_s)) {
			sd_notify(0, "WATCHDOG=1");
			watchdog_held = false;
		} else if (!watchdog_held) {
			log_warnx("a writer has been inside librrd for over "
			    "%.0f s; not feeding the watchdog", watchdog_s);
			watchdog_held = true;
		}
		last_watchdog = now;
	}
	if (now - last_status >= 1.0) {
		char line[256];

		commands_summary(line, sizeof(line));
		sd_notifyf(0, "STATUS=%s", line);
		last_status = now;
		if (shutting_down && !commands_quiescent())
			drain_watch(now);
	}
	if (!shutting_down || !commands_quiescent())
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

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "socket",	required_argument,	NULL, 's' },
		{ "state-dir",	required_argument,	NULL, 'd' },
		{ "log-level",	required_argument,	NULL, 'l' },
		{ "metrics-listen", required_argument,	NULL, 'm' },
		{ "drain-timeout", required_argument,	NULL, 't' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *sock = STRESSD_DEFAULT_SOCKET;
	const char *state_dir = STRESSD_DEFAULT_STATE_DIR;
	const char *metrics = NULL;
	char err[512];
	int level = LOG_LVL_INFO, ch;
	struct event *ev_term, *ev_int, *ev_tick;
	struct timeval tick = { 0, TICK_USEC };
	uint64_t watchdog_usec;
	struct rlimit rl;

	while ((ch = getopt_long(argc, argv, "s:d:l:m:t:hV", opts, NULL)) != -1) {
		switch (ch) {
		case 's':
			sock = optarg;
			break;
		case 'd':
			state_dir = optarg;
			break;
		case 'l':
			if ((level = log_level_parse(optarg)) == -1) {
				fprintf(stderr, "stressd: --log-level: unknown "
				    "level '%s' (err, warn, info, debug)\n",
				    optarg);
				return 2;
			}
			break;
		case 'm':
			metrics = optarg;
			break;
		case 't': {
			char *end;

			drain_timeout = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' ||
			    !(drain_timeout >= 0 && drain_timeout <= 86400)) {
				fprintf(stderr, "stressd: --drain-timeout: '%s' "
				    "is not 0 to 86400 seconds\n", optarg);
				return 2;
			}
			break;
		}
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
	log_init((enum log_level)level);
	signal(SIGPIPE, SIG_IGN);
	/* Every client is a descriptor: allow as many as the hard limit. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	evthread_use_pthreads();
	if ((base = event_base_new()) == NULL)
		fatalx("cannot create the event loop");
	if (commands_init(base, state_dir, sock) == -1)
		fatalx("state directory %s is not usable", state_dir);
	if (control_init(base, sock) == -1)
		fatalx("cannot listen on %s", sock);
	if (metrics != NULL) {
		if (prom_start(base, metrics, commands_metrics, NULL, err,
		    sizeof(err)) == -1) {
			control_shutdown();
			fatalx("--metrics-listen %s: %s", metrics, err);
		}
		log_info("serving metrics on %s (port %d)", metrics,
		    prom_port());
	}
	ev_term = evsignal_new(base, SIGTERM, on_signal, NULL);
	ev_int = evsignal_new(base, SIGINT, on_signal, NULL);
	ev_tick = event_new(base, -1, EV_PERSIST, on_tick, NULL);
	event_add(ev_term, NULL);
	event_add(ev_int, NULL);
	event_add(ev_tick, &tick);
	log_info("stressd %s ready, state in %s", PACKAGE_VERSION, state_dir);
	if (sd_watchdog_enabled(0, &watchdog_usec) > 0)
		watchdog_s = (double)watchdog_usec / 1e6;
	sd_notify(0, "READY=1\nSTATUS=idle");

	event_base_dispatch(base);

	prom_stop();
	control_shutdown();
	commands_finish();
	event_free(ev_term);
	event_free(ev_int);
	event_free(ev_tick);
	event_base_free(base);
	log_info("exiting%s", drain_abandoned ? " (the drain was cut short)" :
	    "");
	return drain_abandoned ? 1 : 0;
}
