/* compare's and sweep's answer to "which is better?": the runs grouped
 * into candidates (runs with the same label, and host, are repeats), the
 * verdict of each (the worst of its runs': kept up, cannot tell, fell
 * behind) ranked first, then the significant queue average as mean and
 * sample standard deviation over its done runs that sampled a paced load
 * (flat-out, unsampled and few-sample runs are left out), and a winner
 * called only when it kept up where each other candidate fell behind, or
 * Welch's t-test at 95 % finds its mean lower. */
#ifndef STRESSCTL_RANK_H
#define STRESSCTL_RANK_H

#include <stdbool.h>

#include <json-c/json.h>

#include "runrec.h"

/* What is ranked (lower is better), as --json names it. */
#define RANK_METRIC	"queue_depth.significant_ops_pending.average"
/* Runs of each candidate the test needs: with fewer, the sample standard
 * deviation says next to nothing about the run-to-run spread. */
#define RANK_MIN_RUNS	3
/* With no spread at all (every run the same), the least relative
 * difference of the means that is called one. */
#define RANK_MIN_REL_DIFF	0.05

/* Two-sided 95 % quantile of Student's t with df degrees of freedom
 * (df >= 1; tabulated, linear in 1/df between the table's rows). */
double		 rank_t_crit(double df);

/* Whether means m1 and m2 of n1 and n2 runs with sample standard
 * deviations s1 and s2 differ by Welch's t-test at 95 % (n1, n2 >= 2);
 * *t and *df get the statistic and the Welch-Satterthwaite degrees of
 * freedom (0 when both deviations are 0: then a difference counts when
 * it exceeds RANK_MIN_REL_DIFF of the larger mean). */
bool		 rank_welch(double m1, double s1, int n1, double m2, double s2,
		    int n2, double *t, double *df);

/* The ranking of n records as data (compare --json's "ranking"): run i is
 * a repeat of candidate cand[i]; see stressctl(1). */
json_object	*rank_build(const struct runrec *const *reps, char *const *cand,
		    int n);

/* The ranking as text, closing compare's output. */
void		 rank_print(json_object *ranking);

#endif
