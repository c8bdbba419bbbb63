/* stressctl watch: follow the current run live, redrawn in place on a
 * terminal, one line per refresh otherwise. */
#include "config.h"

#include <sys/ioctl.h>

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "caprec.h"
#include "cmd-watch.h"
#include "fmt.h"
#include "headline.h"
#include "options.h"
#include "proto.h"
#include "records.h"
#include "statsrec.h"
#include "statusrec.h"
#include "sweeprec.h"
#include "termsafe.h"

/* watch: values the sparkline shows, and the progress bar's width. */
#define WATCH_SPARK		40
#define WATCH_BAR		40
#define WATCH_LINES		6

static volatile sig_atomic_t watch_interrupted;

static void
watch_sigint(int sig)
{
	(void)sig;
	watch_interrupted = 1;
}

/* What watch has seen of the run so far. */
struct watch {
	int64_t		 run_id;
	uint64_t	 spark[WATCH_SPARK];	/* ring of sig values */
	size_t		 nspark, head;
	double		 sig_sum, total_sum;
	unsigned long	 seen;
	bool		 have_prev;
	double		 prev_t, prev_done;
	bool		 tty, drawn;
	double		 update_time;	/* the run's, from status; < 0: none */
};

/* Numbers of one refresh. */
struct watch_now {
	const char	*state;
	int64_t		 run_id;
	double		 t, max, done, completed;
	double		 sig, total;
	double		 rate, overall, eta;	/* eta < 0: unknown */
	bool		 searching;	/* a capacity search or sweep runs */
	bool		 sweeping;	/* it is a sweep */
	int64_t		 search_id;	/* its id, when it does */
	char		 search[256];	/* where it is; "" when none */
	int		 kept_up;	/* the verdict so far: 1, 0, -1 */
	bool		 has_verdict;	/* false: an older stressd */
	size_t		 nwarnings;
};

/* stats' NAN (absent) counted as 0, as the view always has. */
static double
z(double x)
{
	return isnan(x) ? 0 : x;
}

/* A capacity search's place and bracket, or a sweep's, from stats. */
static void
watch_search(const struct statsrec *st, struct watch_now *now)
{
	const struct caprec_progress *c = &st->capacity;
	const struct sweeprec_where *sw = &st->sweep;
	char lo[40] = "", hi[40] = "";

	now->searching = c->has;
	now->sweeping = false;
	now->search[0] = '\0';
	if (!now->searching && sw->has) {
		/* A sweep: which run of how many, and its directory's label. */
		now->searching = now->sweeping = true;
		now->search_id = sw->id;
		snprintf(now->search, sizeof(now->search), "sweep %" PRId64
		    ": run %.0f/%.0f in %s", sw->id, z(sw->run),
		    z(sw->runs_planned), sw->label ? sw->label : "?");
		return;
	}
	if (!now->searching)
		return;
	now->search_id = c->id;
	if (!isnan(c->kept_up_rate))
		snprintf(lo, sizeof(lo), ", kept up at %.0f", c->kept_up_rate);
	if (!isnan(c->behind_rate))
		snprintf(hi, sizeof(hi), ", behind at %.0f", c->behind_rate);
	snprintf(now->search, sizeof(now->search), "capacity %" PRId64
	    ": dir %.0f/%.0f, step %.0f at %.0f updates/s%s%s", c->id,
	    z(c->dir_index) + 1, z(c->ndirs), z(c->step), z(c->rate), lo, hi);
}

/* Fold one stats reply into w and work out the figures to show. */
static void
watch_update(struct watch *w, const struct statsrec *st,
    struct watch_now *now)
{
	double ut, generated;

	now->state = st->state;
	now->run_id = st->has_run_id ? st->run_id : 0;
	now->t = z(st->elapsed_s);
	now->max = z(st->max_updates);
	now->completed = z(st->updates_completed);
	/* Progress counts every update that is finished with, however it
	 * ended, so a run with drops or failures still reaches 100%. */
	now->done = now->completed + z(st->updates_failed) + z(st->dropped) +
	    z(st->discarded);
	now->sig = z(st->significant_ops_pending);
	now->total = z(st->total_operations_pending);
	now->has_verdict = st->verdict.has;
	now->kept_up = st->verdict.kept_up;
	now->nwarnings = st->nwarnings;
	watch_search(st, now);

	/* A new run: what was seen belongs to the old one. */
	if (w->seen > 0 && now->run_id != w->run_id) {
		bool tty = w->tty, drawn = w->drawn;

		memset(w, 0, sizeof(*w));
		w->tty = tty;
		w->drawn = drawn;
		w->update_time = -1;	/* status told of the old run */
	}
	w->run_id = now->run_id;
	w->seen++;
	w->sig_sum += now->sig;
	w->total_sum += now->total;
	w->spark[w->head] = (uint64_t)now->sig;
	w->head = (w->head + 1) % WATCH_SPARK;
	if (w->nspark < WATCH_SPARK)
		w->nspark++;

	/* The current rate over our own refresh period; the daemon's
	 * current window is shared with every other stats caller. */
	if (w->have_prev && now->t > w->prev_t)
		now->rate = (now->completed - w->prev_done) /
		    (now->t - w->prev_t);
	else
		now->rate = z(st->rates.current_dequeue);
	w->have_prev = true;
	w->prev_t = now->t;
	w->prev_done = now->completed;
	now->overall = now->t > 0 ? now->completed / now->t : 0;
	/* A paced run keeps its own pace: the ETA follows update_time
	 * (the reply's, else the one status gave) rather than the pace so
	 * far, which counts the setup. */
	ut = isnan(st->update_time) ? w->update_time : st->update_time;
	generated = z(st->generated);
	now->eta = headline_eta(now->max, generated, now->done, now->t,
	    ut > 0 ? ut : 0, generated - now->done, now->rate);
}

/* The sparkline of the significant queue, scaled to its largest value. */
static void
spark_text(const struct watch *w, char *buf, size_t len, uint64_t *maxp)
{
	static const char *const bars[] = {
		"\u2581", "\u2582", "\u2583", "\u2584",
		"\u2585", "\u2586", "\u2587", "\u2588"
	};
	size_t start = (w->head + WATCH_SPARK - w->nspark) % WATCH_SPARK;
	uint64_t max = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < w->nspark; i++)
		if (w->spark[(start + i) % WATCH_SPARK] > max)
			max = w->spark[(start + i) % WATCH_SPARK];
	for (size_t i = 0; i < w->nspark; i++) {
		uint64_t v = w->spark[(start + i) % WATCH_SPARK];
		size_t level = max > 0 ? (size_t)((v * 7 + max / 2) / max) : 0;

		strncat(buf, bars[level], len - strlen(buf) - 1);
	}
	*maxp = max;
}

/* Cut a line to cols characters, so that no line wraps and the cursor
 * moves of the next redraw stay right. */
static void
fit_line(char *line, int cols)
{
	int w = 0;

	for (char *p = line; *p != '\0'; p++)
		if (((unsigned char)*p & 0xc0) != 0x80 && ++w > cols) {
			*p = '\0';
			return;
		}
}

static int
term_cols(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col - 1;
	return RECORDS_TEXT_WIDTH;
}

/* The verdict so far in words, sep between them ("kept up", or
 * "kept_up" for the plain line). */
static const char *
verdict_word(const struct watch_now *now, char sep)
{
	if (!now->has_verdict)
		return "-";
	if (now->kept_up == 1)
		return sep == ' ' ? "kept up" : "kept_up";
	if (now->kept_up == 0)
		return sep == ' ' ? "fell behind" : "fell_behind";
	return sep == ' ' ? "cannot tell" : "cannot_tell";
}

/* Redraw the view in place: back to its first line, each line cleared. */
static void
watch_draw(struct watch *w, const struct watch_now *now)
{
	char lines[WATCH_LINES][512], eta[32], spark[WATCH_SPARK * 4 + 1];
	char bar[WATCH_BAR + 1];
	double frac = now->max > 0 ? now->done / now->max : 0;
	uint64_t smax;
	int filled, cols = term_cols();

	if (frac > 1)
		frac = 1;
	filled = (int)(frac * WATCH_BAR);
	memset(bar, '#', (size_t)filled);
	memset(bar + filled, '.', (size_t)(WATCH_BAR - filled));
	bar[WATCH_BAR] = '\0';
	headline_eta_text(now->eta, eta, sizeof(eta));
	spark_text(w, spark, sizeof(spark), &smax);

	snprintf(lines[0], sizeof(lines[0]), "stressd run %" PRId64 ": %s, "
	    "%.1f s%s%s", now->run_id, now->state, now->t,
	    now->searching ? " | " : "", now->search);
	snprintf(lines[1], sizeof(lines[1]), "[%s] %5.1f%%  %.0f/%.0f  ETA %s",
	    bar, 100 * frac, now->done, now->max,
	    records_state_ended(now->state) ? "-" : eta);
	snprintf(lines[2], sizeof(lines[2]), "updates/s     %.1f now, %.1f "
	    "overall", now->rate, now->overall);
	snprintf(lines[3], sizeof(lines[3]), "queue         significant %.0f "
	    "(avg %.2f)   total %.0f (avg %.2f)", now->sig,
	    w->sig_sum / (double)w->seen, now->total,
	    w->total_sum / (double)w->seen);
	snprintf(lines[4], sizeof(lines[4]), "significant   %s  max %" PRIu64,
	    spark, smax);

	snprintf(lines[5], sizeof(lines[5]), "verdict       %s%s (%zu "
	    "warning%s)", verdict_word(now, ' '),
	    records_state_ended(now->state) ? "" : " so far", now->nwarnings,
	    now->nwarnings == 1 ? "" : "s");

	/* The cursor moves are watch's own: past the terminal filter. */
	if (w->drawn) {
		char up[16];

		snprintf(up, sizeof(up), "\033[%dA", WATCH_LINES);
		termsafe_raw(up);
	}
	for (int i = 0; i < WATCH_LINES; i++) {
		fit_line(lines[i], cols);
		termsafe_raw("\r");
		printf("%s", lines[i]);
		termsafe_raw("\033[K");
		printf("\n");
	}
	w->drawn = true;
}

/* One plain line per refresh, for logs and pipes. */
static void
watch_line(const struct watch *w, const struct watch_now *now)
{
	char eta[32];

	headline_eta_text(now->eta, eta, sizeof(eta));
	printf("t=%.1fs run=%" PRId64 " state=%s done=%.0f/%.0f sig=%.0f "
	    "total=%.0f sig_avg=%.2f total_avg=%.2f rate=%.1f/s "
	    "overall=%.1f/s eta=%s verdict=%s warnings=%zu%s%s%s\n", now->t,
	    now->run_id, now->state, now->done, now->max, now->sig,
	    now->total, w->sig_sum / (double)w->seen,
	    w->total_sum / (double)w->seen, now->rate, now->overall,
	    records_state_ended(now->state) ? "-" : eta,
	    verdict_word(now, '_'), now->nwarnings,
	    now->searching ? " [" : "", now->search,
	    now->searching ? "]" : "");
}

/* Sleep until the monotonic time until, or a signal. */
static void
sleep_until(double until)
{
	struct timespec now, ts;
	double left;

	while (!watch_interrupted) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = until - ((double)now.tv_sec + (double)now.tv_nsec / 1e9);
		if (left <= 0)
			return;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		/* EINTR: the loop looks at watch_interrupted again. */
		nanosleep(&ts, NULL);
	}
}

static double
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A search (or a sweep) watched to its end: 0 when it is done, else 1
 * (its last step's run ended stopped, as a step that had its answer
 * does). */
static int
search_rc(const struct records_ctx *ctx, int64_t id, bool sweep)
{
	json_object *args = json_object_new_object(), *rep;
	struct caprec *cr = NULL;
	struct sweeprec *sr = NULL;
	const char *st = NULL, *reason = NULL;
	char *err = NULL;
	int rc = CTL_EXIT_OK;

	json_object_object_add(args, "run", json_object_new_int64(id));
	if (sweep)
		json_object_object_add(args, "kind",
		    json_object_new_string("sweep"));
	rep = ctx->call(ctx->call_arg, "report", args, &rc);
	json_object_put(args);
	if (rep == NULL)
		return rc;
	if (sweep && (sr = sweeprec_parse(rep, &err)) != NULL) {
		st = sr->state;
		reason = sr->reason;
	} else if (!sweep && (cr = caprec_parse(rep, &err)) != NULL) {
		st = cr->state;
		reason = cr->reason;
	}
	rc = st != NULL && strcmp(st, "done") == 0 ? CTL_EXIT_OK :
	    CTL_EXIT_ERROR;
	if (err != NULL)
		records_error(ctx, "%s", err);
	else if (rc != CTL_EXIT_OK)
		records_error(ctx, "%s %" PRId64 " %s%s%s", sweep ? "sweep" :
		    "capacity search", id, st, reason ? ": " : "",
		    reason ? reason : "");
	free(err);
	caprec_free(cr);
	sweeprec_free(sr);
	json_object_put(rep);
	return rc;
}

static int
run_watch(const struct records_ctx *ctx)
{
	struct sigaction sa, old_int;
	struct watch w;
	struct watch_now now;
	json_object *status, *st = NULL;
	struct statsrec *sr = NULL;
	struct statusrec *sts;
	char *serr = NULL;
	double interval = ctx->interval, start;
	unsigned long n = 0;
	int64_t search = 0;
	bool sweep = false;
	int rc = CTL_EXIT_OK;

	memset(&w, 0, sizeof(w));
	w.tty = !ctx->json && isatty(STDOUT_FILENO);
	/* The refresh follows the run's sampling unless told otherwise. */
	if ((status = ctx->call(ctx->call_arg, "status", NULL, &rc)) == NULL)
		return rc;
	sts = statusrec_parse(status, &serr);
	json_object_put(status);
	if (sts == NULL) {
		records_error(ctx, "%s", serr);
		free(serr);
		return CTL_EXIT_ERROR;
	}
	if (interval <= 0 && isnan(interval = sts->sample_interval))
		interval = 1;
	w.update_time = isnan(sts->update_time) ? -1 : sts->update_time;
	if (interval < 0.1)
		interval = 0.1;
	statusrec_free(sts);

	/* Ctrl-C ends the watch, not the program mid-line: the view is left
	 * whole and the cursor below it.  No SA_RESTART, so a sleep ends. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watch_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	watch_interrupted = 0;

	start = mono_now();
	for (;;) {
		char *err = NULL;

		if ((st = ctx->call(ctx->call_arg, "stats", NULL, &rc)) ==
		    NULL)
			break;
		if ((sr = statsrec_parse(st, &err)) == NULL) {
			records_error(ctx, "%s", err);
			free(err);
			rc = CTL_EXIT_ERROR;
			break;
		}
		watch_update(&w, sr, &now);
		if (now.searching) {
			search = now.search_id;
			sweep = now.sweeping;
		}
		if (ctx->json)
			printf("%s\n", fmt_json_string(st));
		else if (w.tty)
			watch_draw(&w, &now);
		else
			watch_line(&w, &now);
		fflush(stdout);
		n++;
		/* Between a search's steps the last run has ended: the
		 * watch goes on until the search does. */
		if (records_state_ended(now.state) && !now.searching) {
			rc = search > 0 ? search_rc(ctx, search, sweep) :
			    strcmp(now.state, "failed") == 0 ?
			    CTL_EXIT_ERROR : CTL_EXIT_OK;
			if (rc != CTL_EXIT_OK)
				records_error(ctx, "run %" PRId64 " failed%s%s",
				    now.run_id, sr->reason ? ": " : "",
				    sr->reason ? sr->reason : "");
			break;
		}
		statsrec_free(sr);
		sr = NULL;
		json_object_put(st);
		st = NULL;
		if (watch_interrupted || (ctx->count > 0 && n >= ctx->count))
			break;
		/* A fixed cadence: a slow reply does not shift the next. */
		sleep_until(start + (double)n * interval);
		if (watch_interrupted)
			break;
	}
	/* The terminal echoed ^C where the cursor was; end that line. */
	if (watch_interrupted && w.tty)
		putchar('\n');
	statsrec_free(sr);
	json_object_put(st);
	sigaction(SIGINT, &old_int, NULL);
	return rc;
}

static int
watch_option(struct ctl *ctl, int c)
{
	double d;
	int ret;

	switch (c) {
	case OPT_INTERVAL:
		if ((ret = options_number(ctl->cmd, "--interval", optarg, 0.1,
		    3600, false, &d)) != PARSE_OK)
			return ret;
		ctl->rec.interval = d;
		return PARSE_OK;
	case OPT_COUNT:
		if ((ret = options_number(ctl->cmd, "--count", optarg, 1, 1e9,
		    true, &d)) != PARSE_OK)
			return ret;
		ctl->rec.count = (unsigned long)d;
		return PARSE_OK;
	}
	return OPTIONS_UNKNOWN;
}

const struct ctl_cmd cmd_watch_entry = {
	.name = "watch",
	.usage = "[--interval S] [--count N]",
	.summary = "follow the current run live",
	.details =
	    "Options:\n"
	    "  --interval SECONDS  refresh period, 0.1 to 3600 (default: the "
	    "run's\n"
	    "                      sample interval)\n"
	    "  --count N           stop after N refreshes\n"
	    "  --json              print each refresh's stats as one line of "
	    "JSON\n"
	    "  -h, --help          print this help and exit\n\nOn a terminal "
	    "the view is redrawn in place; otherwise one line is printed per\n"
	    "refresh.  The exit status is 0 when the run ends done or stopped "
	    "(or none is\nactive), 1 if it failed.  Ctrl-C stops watching with "
	    "status 0.\n",
	.options = (const struct option[]){
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "count", required_argument, NULL, OPT_COUNT },
		OPTIONS_COMMON,
		{ NULL, 0, NULL, 0 }
	},
	.option = watch_option,
	.parse = options_parse_plain,
	.run = run_watch,
};
