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

/* The schema name of a capacity record. */
#define CAPVIEW_SCHEMA	"stressd-capacity"

/* Whether o is a capacity record. */
bool		 capview_is_record(json_object *o);
/* The host a record was made on ("host", else "machine.name"), or
 * NULL. */
const char	*capview_host(json_object *rec);
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
/* One finished step as one line ("dir 1/2  step 3  grow  400/s  kept up
 * ..."). */
void		 capview_step_line(json_object *rec, json_object *step,
		    FILE *f);
/* A rate for people: "1850", "12.5". */
char		*capview_rate(double r);

#endif
