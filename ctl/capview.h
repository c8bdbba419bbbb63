/*
 * The view of capacity records (STATE/runs/N/capacity.json, "schema":
 * "stressd-capacity"): each directory's capacity and what limited it,
 * one line per step, and the ranking of the directories of one or more
 * records.  The ranking is the ctl's, so copied records of other hosts
 * rank too: A is ahead of the directory below it, B, only when A's
 * capacity_rate >= B's behind_rate (their brackets do not overlap), and
 * never when either figure is a ceiling of the tool (limited by the CPU
 * or by max_rate) rather than of the storage.
 */
#ifndef STRESSCTL_CAPVIEW_H
#define STRESSCTL_CAPVIEW_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "caprec.h"

/* The schema name of a capacity record. */
#define CAPVIEW_SCHEMA	"stressd-capacity"

/* Whether o is a capacity record. */
bool		 capview_is_record(json_object *o);
/* Whether a search in state has ended. */
bool		 capview_state_ended(const char *state);

/*
 * The ranking of every directory of the n records, highest capacity
 * first: [{"rank", "id", "host", "dir", "label", "fs_type",
 * "capacity_rate", "behind_rate", "limited_by", "precision_pct",
 * "next": {"dir", "margin_pct", "relation", "text"} | null}], where next
 * compares the entry with the one below it and relation is "ahead",
 * "within_precision", "ceiling" (a figure is the tool's, not the
 * storage's) or "unknown" (no figure to compare).
 */
json_object	*capview_ranking(json_object *const *recs, int n);
/* --json: one record, a deep copy with "ranking" added; several:
 * {"records": [...], "ranking": [...]}. */
json_object	*capview_json(json_object *const *recs, int n);

/* The text view of the n records: each record's search, each directory's
 * result, then the ranking (when there is more than one directory). */
void		 capview_print(json_object *const *recs, int n, bool steps,
		    FILE *f);
/* compare: the directories of the n records side by side (one column
 * each), then the ranking. */
void		 capview_compare(json_object *const *recs, int n, FILE *f);
/* The same views of records already read (caprec_parse): the JSON ones
 * above parse theirs, saying on stderr why one that does not parse is
 * left out. */
json_object	*capview_ranking_recs(const struct caprec *const *recs, int n);
json_object	*capview_json_recs(const struct caprec *const *recs, int n);
void		 capview_print_recs(const struct caprec *const *recs, int n,
		    bool steps, FILE *f);
void		 capview_compare_recs(const struct caprec *const *recs, int n,
		    FILE *f);
/* One finished step as one line ("dir 1/2  step 3  grow  400/s  kept up
 * ..."). */
void		 capview_step_line_rec(const struct caprec *rec,
		    const struct caprec_step *step, FILE *f);

/* A rate for people: "1850", "12.5". */
char		*capview_rate(double r);

#endif
