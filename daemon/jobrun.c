/* The run kind; see jobrun.h.  Its job is whatever the run slot holds:
 * the run being prepared, then the current run. */
#include <stdio.h>

#include "job.h"
#include "jobrun.h"
#include "lifecycle.h"
#include "recover.h"
#include "request.h"
#include "run.h"

static int
jobrun_start(struct request_args *a, int update_fd)
{
	return lifecycle_prepare(&a->params, update_fd);
}

static bool
jobrun_active(void)
{
	return lifecycle_pending() != NULL || run_active(lifecycle_run());
}

static void
jobrun_run_event(enum job_run_event ev)
{
	struct run *r = lifecycle_run();
	const char *field, *code, *msg;
	json_object *res;

	switch (ev) {
	case JOB_RUN_LAUNCHED:
		res = run_status_json(r);
		json_object_object_add(res, "run_id",
		    json_object_new_int64(run_id(r)));
		job_started(res);
		break;
	case JOB_RUN_REFUSED:
		msg = lifecycle_refusal(&field, &code);
		job_refused(code, field[0] != '\0' ? field : NULL, msg);
		/* Those who waited for the run's end get the last run as it
		 * is. */
		job_ended(lifecycle_stats_json());
		break;
	case JOB_RUN_ENDED:
		job_ended(run_stats_json(r));
		break;
	}
}

static void
jobrun_stop(bool drain, const char *why)
{
	/* Not started yet: it is refused when its preparation ends. */
	if (lifecycle_pending() != NULL)
		lifecycle_cancel_pending();
	else
		run_stop(lifecycle_run(), drain, why);
}

/* {"run_id": id, "state": state}, as stop answers. */
static json_object *
stopped_json(unsigned run, const char *state)
{
	json_object *res = json_object_new_object();

	json_object_object_add(res, "run_id", json_object_new_int64(run));
	json_object_object_add(res, "state", json_object_new_string(state));
	return res;
}

static json_object *
jobrun_stop_reply(bool wait)
{
	struct run *r = lifecycle_run(), *pending = lifecycle_pending();

	/* A run stopped while prepared never starts: nothing to wait for
	 * but its refusal. */
	if (pending != NULL)
		return stopped_json(run_id(pending), "stopped");
	if (wait)
		return NULL;
	return stopped_json(run_id(r), run_state_name(run_state(r)));
}

static void
jobrun_busy(char *buf, size_t len)
{
	struct run *r = lifecycle_run(), *pending = lifecycle_pending();

	if (pending != NULL)
		snprintf(buf, len, "run %u is being prepared", run_id(pending));
	else
		snprintf(buf, len, "run %u is %s; stop it or wait for it "
		    "first", run_id(r), run_state_name(run_state(r)));
}

/* The current run's report is fresh; any other run's is on disk. */
static json_object *
jobrun_record_json(unsigned id)
{
	struct run *r = lifecycle_run();

	return r != NULL && run_id(r) == id ? run_report_json(r) : NULL;
}

static void
jobrun_recover(const char *state_dir, const struct config *cfg)
{
	recover_runs(state_dir, cfg, RECOVER_BUDGET_S);
}

const struct job_kind jobrun_kind = {
	.name = "run",
	.record_file = NULL,
	.start = jobrun_start,
	.active = jobrun_active,
	.run_event = jobrun_run_event,
	.stop = jobrun_stop,
	.stop_reply = jobrun_stop_reply,
	.busy = jobrun_busy,
	.record_json = jobrun_record_json,
	.recover = jobrun_recover,
};
