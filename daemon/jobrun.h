/*
 * The run kind of job: one run with the client's knobs, as `start`
 * begins it.  Its record is the run's report.json; crash recovery is
 * recover.c's.
 */
#ifndef STRESSD_JOBRUN_H
#define STRESSD_JOBRUN_H

#include "job.h"

extern const struct job_kind jobrun_kind;

#endif
