/* The job kinds and the current job; see job.h.  It knows the kinds only
 * by their tables, registered from main.c. */
#include <stdio.h>
#include <string.h>

#include "control.h"
#include "job.h"
#include "runrecords.h"

/* run, capacity, sweep: room for a few more. */
#define JOB_MAX_KINDS	8

static struct {
	const struct job_kind	*kinds[JOB_MAX_KINDS];
	size_t			 nkinds;
	const struct job_kind	*cur;	/* the current or last job's kind */
} jobs;

int
job_register(const struct job_kind *k)
{
	if (jobs.nkinds == JOB_MAX_KINDS || job_find(k->name) != NULL)
		return -1;
	jobs.kinds[jobs.nkinds++] = k;
	return 0;
}

const struct job_kind *
job_find(const char *name)
{
	for (size_t i = 0; i < jobs.nkinds; i++)
		if (strcmp(jobs.kinds[i]->name, name) == 0)
			return jobs.kinds[i];
	return NULL;
}

int
job_start(const struct job_kind *k, struct request_args *a, int update_fd)
{
	if (k == NULL || k->start(a, update_fd) == -1)
		return -1;
	jobs.cur = k;
	return 0;
}

bool
job_active(void)
{
	return jobs.cur != NULL && jobs.cur->active();
}

void
job_busy(char *buf, size_t len)
{
	if (job_active())
		jobs.cur->busy(buf, len);
	else
		snprintf(buf, len, "no job is active");
}

void
job_stop(bool drain, const char *why)
{
	if (job_active())
		jobs.cur->stop(drain, why);
}

json_object *
job_stop_reply(bool wait)
{
	return jobs.cur != NULL ? jobs.cur->stop_reply(wait) : NULL;
}

void
job_add_status(json_object *o, bool active_only)
{
	for (size_t i = 0; i < jobs.nkinds; i++) {
		const struct job_kind *k = jobs.kinds[i];

		if (k->status_json == NULL || (active_only &&
		    (k != jobs.cur || !k->active())))
			continue;
		json_object_object_add(o, k->name, k->status_json());
	}
}

json_object *
job_record_json(unsigned id)
{
	json_object *rec;

	for (size_t i = 0; i < jobs.nkinds; i++)
		if (!jobs.kinds[i]->record_by_name &&
		    jobs.kinds[i]->record_json != NULL &&
		    (rec = jobs.kinds[i]->record_json(id)) != NULL)
			return rec;
	return NULL;
}

json_object *
job_record_load(const char *state_dir, unsigned id)
{
	json_object *rec;

	for (size_t i = 0; i < jobs.nkinds; i++)
		if (!jobs.kinds[i]->record_by_name &&
		    jobs.kinds[i]->record_file != NULL && (rec =
		    runrecords_load_file(state_dir, id,
		    jobs.kinds[i]->record_file)) != NULL)
			return rec;
	return NULL;
}

json_object *
job_kind_record(const struct job_kind *k, const char *state_dir, unsigned id)
{
	json_object *rec = NULL;

	if (k != NULL && k->record_json != NULL)
		rec = k->record_json(id);
	if (rec == NULL && k != NULL && k->record_file != NULL)
		rec = runrecords_load_file(state_dir, id, k->record_file);
	return rec;
}

void
job_metrics(struct evbuffer *out)
{
	for (size_t i = 0; i < jobs.nkinds; i++)
		if (jobs.kinds[i]->metrics != NULL)
			jobs.kinds[i]->metrics(out);
}

void
job_tick(void)
{
	if (job_active() && jobs.cur->tick != NULL)
		jobs.cur->tick();
}

void
job_run_event(enum job_run_event ev)
{
	/* Every run belongs to the current job: it prepared it. */
	if (jobs.cur != NULL && jobs.cur->run_event != NULL)
		jobs.cur->run_event(ev);
}

bool
job_summary(char *buf, size_t len)
{
	return job_active() && jobs.cur->summary != NULL &&
	    jobs.cur->summary(buf, len);
}

void
job_recover(const char *state_dir, const struct config *cfg)
{
	for (size_t i = 0; i < jobs.nkinds; i++)
		if (jobs.kinds[i]->recover != NULL)
			jobs.kinds[i]->recover(state_dir, cfg);
}

void
job_finish(void)
{
	for (size_t i = 0; i < jobs.nkinds; i++)
		if (jobs.kinds[i]->finish != NULL)
			jobs.kinds[i]->finish();
	jobs.cur = NULL;
	jobs.nkinds = 0;	/* job_register's pair */
}

void
job_started(json_object *result)
{
	control_complete_deferred(CONTROL_WAIT_JOB_START, result);
}

void
job_refused(const char *code, const char *field, const char *message)
{
	control_fail_deferred(CONTROL_WAIT_JOB_START, code, field, message);
}

void
job_ended(json_object *result)
{
	control_complete_deferred(CONTROL_WAIT_JOB_END, result);
}
