/* Following a job of the daemon; see follow.h. */
#include "config.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmt.h"
#include "follow.h"
#include "recparse.h"
#include "proto.h"

/* Poll period while following, in ms. */
#define POLL_MS		1000
/* Polls that may see the job gone before its record says it ended (the
 * record is rewritten after the daemon's state changes). */
#define GONE_POLLS	5

static volatile sig_atomic_t follow_interrupted;

static void
follow_sigint(int sig)
{
	(void)sig;
	follow_interrupted = 1;
}

/* The id under key of a start reply; false when it is not an integer. */
static bool
start_id(json_object *res, const char *key, int64_t *id)
{
	struct recparse p;
	bool has, ok;

	recparse_init(&p, "start reply");
	ok = recparse_int(&p, res, key, RECPARSE_REQ, id, &has);
	free(recparse_take_error(&p));
	return ok;
}

/*
 * The id and state of the job of kind cmd in a status reply (the two
 * members every kind's object has): 0 when none runs, -1 with the error
 * said when its object is not one.
 */
static int64_t
status_job(const struct records_ctx *ctx, json_object *st, const char *cmd,
    const char **state)
{
	struct recparse p;
	json_object *job;
	int64_t id = 0;
	bool has;

	recparse_init(&p, "status reply");
	*state = NULL;
	if (!recparse_obj(&p, st, cmd, RECPARSE_OPT, &job))
		goto fail;
	if (job == NULL)
		return 0;
	recparse_at(&p, "%s", cmd);
	if (!recparse_int(&p, job, "id", RECPARSE_REQ, &id, &has) ||
	    !recparse_str(&p, job, "state", RECPARSE_REQ, state))
		goto fail;
	return id;
fail:
	{
		char *err = recparse_take_error(&p);

		records_error(ctx, "%s", err);
		free(err);
	}
	return -1;
}

int64_t
follow_start(const struct records_ctx *ctx, const struct follow_job *j,
    json_object *args, int *rc)
{
	struct sigaction sa = { .sa_handler = follow_sigint,
	    .sa_flags = SA_RESTART }, old;
	json_object *res;
	int64_t id;

	/* The reply waits for the first run's setup (a scan of thousands
	 * of files): a Ctrl-C then is kept for follow_run to act on once
	 * the job's id is known, as --on-interrupt says. */
	follow_interrupted = 0;
	sigemptyset(&sa.sa_mask);
	if (!j->detach)
		sigaction(SIGINT, &sa, &old);
	res = ctx->call(ctx->call_arg, j->cmd, args, rc);
	if (!j->detach)
		sigaction(SIGINT, &old, NULL);
	if (res == NULL)
		return 0;	/* refused, or a dry run */
	if (!start_id(res, j->id_key, &id) || id <= 0) {
		records_error(ctx, "the reply has no %s: %.200s", j->id_key,
		    fmt_json_string(res));
		json_object_put(res);
		*rc = CTL_EXIT_ERROR;
		return 0;
	}
	if (j->detach) {
		if (ctx->json)
			printf("%s\n", fmt_json_string(res));
		else
			printf("%s %s %" PRId64 " started in stressd\n"
			    "  follow it: stressctl %s --attach\n"
			    "  stop it:   stressctl stop\n", j->cmd, j->what,
			    id, j->cmd);
		json_object_put(res);
		*rc = CTL_EXIT_OK;
		return 0;
	}
	json_object_put(res);
	fprintf(stderr, "stressctl %s: %s %" PRId64 " started; Ctrl-C %s\n",
	    j->cmd, j->what, id, j->int_stop ? "stops it" :
	    "detaches (it goes on in stressd)");
	return id;
}

/* Ctrl-C: detach (the job goes on) or ask the daemon to stop it.
 * Returns FOLLOW_ON to go on following, or the exit status. */
static int
interrupted(const struct records_ctx *ctx, const struct follow_job *j,
    int64_t id, bool *stopping)
{
	json_object *res;
	int rc = CTL_EXIT_OK;

	follow_interrupted = 0;
	if (!j->int_stop || *stopping) {
		fprintf(stderr, "\nstressctl %s: detached; %s %" PRId64 " goes "
		    "on in stressd.\n  follow it again: stressctl %s --attach"
		    "\n  stop it:         stressctl stop\n", j->cmd, j->what,
		    id, j->cmd);
		return 128 + SIGINT;
	}
	fprintf(stderr, "\nstressctl %s: stopping %s %" PRId64 " (its current "
	    "%s is drained; Ctrl-C again to detach)\n", j->cmd, j->what, id,
	    strcmp(j->cmd, "capacity") == 0 ? "step" : "run");
	if ((res = ctx->call(ctx->call_arg, "stop", NULL, &rc)) == NULL)
		return rc;
	json_object_put(res);
	*stopping = true;
	return FOLLOW_ON;
}

int
follow_run(const struct records_ctx *ctx, const struct follow_job *j,
    int64_t id, bool *stopped)
{
	struct sigaction sa = { .sa_handler = follow_sigint }, old;
	json_object *st;
	int rc = FOLLOW_ON, gone = 0;

	*stopped = false;
	/* No SA_RESTART: the poll's sleep ends at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	for (;;) {
		const char *state;
		int64_t jid;
		bool live;

		if (follow_interrupted &&
		    (rc = interrupted(ctx, j, id, stopped)) != FOLLOW_ON)
			break;
		if ((st = ctx->call(ctx->call_arg, "status", NULL, &rc)) ==
		    NULL)
			break;
		if ((jid = status_job(ctx, st, j->cmd, &state)) < 0) {
			json_object_put(st);
			rc = CTL_EXIT_ERROR;
			break;
		}
		live = jid == id && !records_state_ended(state);
		rc = j->poll(ctx, j->arg, live ? st : NULL);
		json_object_put(st);
		if (rc != FOLLOW_ON || (!live && ++gone > GONE_POLLS)) {
			if (rc == FOLLOW_ON)
				rc = FOLLOW_ENDED;
			break;
		}
		nanosleep(&(struct timespec){ POLL_MS / 1000,
		    (POLL_MS % 1000) * 1000000L }, NULL);
	}
	sigaction(SIGINT, &old, NULL);
	return rc;
}

int64_t
follow_running(const struct records_ctx *ctx, const char *cmd, int *rc)
{
	json_object *res;
	const char *state;
	int64_t id;

	if ((res = ctx->call(ctx->call_arg, "status", NULL, rc)) == NULL)
		return -1;
	if ((id = status_job(ctx, res, cmd, &state)) < 0)
		*rc = CTL_EXIT_ERROR;
	else if (id > 0 && records_state_ended(state))
		id = 0;
	json_object_put(res);
	return id;
}
