/* stressctl's view of run records: report, runs, compare, watch, graph. */
#ifndef STRESSCTL_RECORDS_H
#define STRESSCTL_RECORDS_H
#endif
