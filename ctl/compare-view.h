/* What compare (and sweep) call each run: the column heading (its label,
 * else its filesystem with the mount options that differ between the
 * runs, else its run id), the run id (with the host when the runs come
 * from several), the candidate it is a repeat of, and the directory the
 * user gave (without sweep's generated subdirectory). */
#ifndef STRESSCTL_COMPARE_VIEW_H
#define STRESSCTL_COMPARE_VIEW_H

#include <stdbool.h>

#include "runrec.h"

struct compare_view {
	const struct runrec *const *reps;
	int		  n;
	bool		  by_host;	/* the runs come from several hosts */
	bool		  named;	/* some heading is not its run id */
	char		**name;		/* column heading */
	char		**run;		/* "run ID" or "run ID@HOST" */
	char		**who;		/* "run ID (heading)" */
	char		**cand;		/* the ranking's candidate */
};

void	 compare_view_init(struct compare_view *v,
	    const struct runrec *const *reps, int n);
void	 compare_view_free(struct compare_view *v);

/* The run's directory as the user gave it: a sweep's DIR/sweep-ID-K is
 * DIR.  A malloc'd string, or NULL if the record names none. */
char	*compare_view_dir(const struct runrec *rep);

#endif
