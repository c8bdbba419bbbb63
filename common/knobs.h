/* The run knobs: one table gives their JSON names, the original Java
 * stresser's property names, types, defaults and bounds.  The daemon
 * validates `start` arguments with it and stressctl builds its options,
 * -D translation and help text from it, so the three cannot disagree. */
#ifndef STRESSD_KNOBS_H
#define STRESSD_KNOBS_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <json-c/json.h>

#define KNOBS_MAX_RRAS		32
/* Room for a quote of a client's value in a message (text_quote). */
#define KNOBS_QUOTE		80
#define KNOBS_TEXT_MAX		128	/* a KNOB_TEXT value, NUL included */
#define KNOBS_DEFAULT_RRAS \
	"RRA:AVERAGE:0.5:1:8928,RRA:AVERAGE:0.5:12:8784," \
	"RRA:MIN:0.5:12:8784,RRA:MAX:0.5:12:8784"

struct stress_params {
	uint64_t	files;
	uint64_t	threads;
	uint64_t	write_threads;
	uint64_t	max_updates;
	uint64_t	modulus;
	double		update_time;
	double		until_steady;	/* s of load at most; 0: max_updates */
	uint64_t	zero_files;
	uint64_t	files_per_dir;
	char		dir[4096];
	char		*rras[KNOBS_MAX_RRAS];
	size_t		nrras;
	uint64_t	step;
	uint64_t	data_sources;
	uint64_t	updates_per_open;
	bool		use_queue;
	bool		queue_creates;
	bool		prioritize;
	double		max_insig_update_seconds;
	uint64_t	queue_high_water;
	uint64_t	sig_high_water;
	uint64_t	insig_high_water;
	uint64_t	queue_memory_max;	/* MiB; 0 = unbounded */
	bool		queue_memory_fit;	/* not a knob: queue_memory_max is
						   the default, lowered to fit a
						   memory cap (memneed.h) */
	char		update_file[4096];
	uint64_t	start;
	uint64_t	seed;
	double		sample_interval;
	double		fail_after;
	double		latency_bound;	/* s; 0: the step */
	unsigned	sync;		/* enum knobs_sync */
	char		sweep_id[KNOBS_TEXT_MAX];
	char		label[KNOBS_TEXT_MAX];	/* what the run is a candidate of */
	double		flush_timeout;
	char		target[KNOBS_TEXT_MAX];	/* librrd | rrdcached:ADDR */
};

/* The values of the sync knob, in the order of its choices. */
enum knobs_sync {
	KNOBS_SYNC_NONE,
	KNOBS_SYNC_DATA,	/* fdatasync each file after its batch */
	KNOBS_SYNC_DROP_CACHES,	/* evict the run's files before the load */
	KNOBS_SYNC_DROP_HOST_CACHES,	/* as root, drop the host's caches */
};

enum knob_type {
	KNOB_UINT,
	KNOB_DOUBLE,
	KNOB_BOOL,
	KNOB_STRING,		/* char[4096] in the struct */
	KNOB_RRAS,		/* list of RRA definitions */
	KNOB_CHOICE,		/* one word of knobs_choices(); unsigned
				   index in the struct */
	KNOB_TEXT,		/* a label, char[KNOBS_TEXT_MAX]: not a path */
};

struct knob {
	const char	*name;		/* JSON argument name */
	const char	*option;	/* stressctl long option */
	const char	*properties;	/* Java properties, comma separated */
	enum knob_type	 type;
	size_t		 offset;
	const char	*defval;	/* as text; NULL = derived or none */
	double		 min, max;	/* numeric bounds, inclusive */
	const char	*help;
};

extern const struct knob knobs_table[];
extern const size_t knobs_count;

/* Properties accepted and ignored with a warning. */
extern const char *const knobs_ignored_properties[];

const struct knob	*knobs_find(const char *name);
const struct knob	*knobs_find_property(const char *prop);
/* The words a KNOB_CHOICE knob takes, NULL-terminated (NULL otherwise). */
const char *const	*knobs_choices(const struct knob *k);

/* The index of word among k's choices, or -1. */
int	knobs_choice_index(const struct knob *k, const char *word);
/* Split a comma-separated RRA list into p->rras; -1 with err filled. */
int	knobs_rras_set_text(struct stress_params *p, const char *text,
	    char *err, size_t errlen);
/* k's choices as "a, b or c". */
void	knobs_choice_list(const struct knob *k, char *buf, size_t len);

/* What is wrong with a typed value beyond its syntax: the one check that
 * `start` (knobs_apply), the configuration file and stressctl make, each
 * wording the answer for its own reader.  *index names the bad RRA.
 * Paths and RRAs go into stress.log's header lines: no control
 * characters, so a value can never forge a line. */
enum knobs_value_problem {
	KNOBS_VALUE_OK,
	KNOBS_VALUE_RANGE,		/* a number outside [min, max] */
	KNOBS_VALUE_PATH,		/* a path that is not absolute */
	KNOBS_VALUE_NO_RRA,		/* an empty RRA list */
	KNOBS_VALUE_TOO_MANY_RRAS,	/* over KNOBS_MAX_RRAS */
	KNOBS_VALUE_NOT_RRA,		/* an element not "RRA:..." */
	KNOBS_VALUE_CONTROL,		/* a control character: *index is
					   its offset in a path, the RRA
					   that holds it in a list */
};
enum knobs_value_problem knobs_check_value(const struct knob *k,
	    json_object *v, size_t *index);

/* The default of queue_memory_max in MiB: an eighth of physical memory,
 * at least 16 and at most 256. */
uint64_t	knobs_default_queue_memory(void);
/* Fill *p with every default. */
void	knobs_defaults(struct stress_params *p);
/* Release what knobs_defaults/knobs_apply allocated. */
void	knobs_free(struct stress_params *p);
int	knobs_copy(struct stress_params *dst, const struct stress_params *src);

/*
 * Apply a JSON object of arguments on top of defaults.  On error returns -1
 * and sets *field (the offending key; valid until the next call) and
 * writes a message naming it into err.
 */
int	knobs_apply(struct stress_params *p, json_object *args,
	    const char **field, char *err, size_t errlen);

/* Parse a text value (from a command line) into the JSON type the knob
 * takes.  Returns NULL and fills err on a bad value. */
json_object	*knobs_parse_text(const struct knob *k, const char *text,
	    char *err, size_t errlen);

/* The rrdcached address of target rrdcached:ADDR, NULL for librrd. */
const char	*knobs_rrdcached_addr(const struct stress_params *p);
/* Check a KNOB_TEXT value of len bytes; -1 with err filled if bad. */
int	knobs_check_text(const struct knob *k, const char *s, size_t len,
	    char *err, size_t errlen);

/* Every parameter as a JSON object (the echo in status and stress.log). */
json_object	*knobs_to_json(const struct stress_params *p);

/* A bound or a value as a person writes it (integers in full, not in
 * e-notation) into buf; returns buf. */
const char	*knobs_num_text(double d, char *buf, size_t len);

#endif
