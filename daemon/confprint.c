/* Printing the effective configuration (--check-config) and logging what
 * a SIGHUP changed. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confkeys.h"
#include "conffile.h"
#include "knobs.h"
#include "log.h"

/* A profile key's value as the file would hold it. */
static void
print_value(FILE *fp, json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_int:
		fprintf(fp, "%lld", (long long)json_object_get_int64(v));
		break;
	case json_type_double:
		confkeys_print_number(fp, json_object_get_double(v));
		break;
	case json_type_boolean:
		fputs(json_object_get_boolean(v) ? "true" : "false", fp);
		break;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++)
			fprintf(fp, "%s%s", i ? "," : "",
			    json_object_get_string(
			    json_object_array_get_idx(v, i)));
		break;
	default:
		fputs(json_object_get_string(v), fp);
		break;
	}
}

/* Global key i's value as text (malloc'd, NULL when out of memory);
 * *set false when the key is unset. */
static char *
global_text(const struct config *c, size_t i, bool *set)
{
	char *s = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&s, &n);

	*set = false;
	if (fp == NULL)
		return NULL;
	*set = confkeys[i].get(c, fp);
	if (fclose(fp) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static char *
json_text(json_object *v)
{
	char *s = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&s, &n);

	if (fp == NULL)
		return NULL;
	print_value(fp, v);
	if (fclose(fp) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

void
conffile_print(const struct config *c, FILE *fp)
{
	for (size_t i = 0; i < confkeys_count; i++) {
		bool set;
		char *s = global_text(c, i, &set);

		/* Unset keys as comments, so the output is a valid file. */
		if (set)
			fprintf(fp, "%s = %s\n", confkeys[i].name, s ? s : "?");
		else
			fprintf(fp, "# %s = (not set: %s)\n", confkeys[i].name,
			    confkeys[i].unset);
		free(s);
	}
	for (size_t i = 0; i < c->nprofiles; i++) {
		const struct conffile_profile *p = &c->profiles[i];

		fprintf(fp, "\n[profile %s]\n", p->name);
		for (size_t k = 0; k < knobs_count; k++) {
			json_object *v;

			if (!json_object_object_get_ex(p->args,
			    knobs_table[k].name, &v))
				continue;
			fprintf(fp, "%s = ", knobs_table[k].name);
			print_value(fp, v);
			fputc('\n', fp);
		}
	}
}

static const struct conffile_profile *
profile_find(const struct config *c, const char *name)
{
	for (size_t i = 0; i < c->nprofiles; i++)
		if (strcmp(c->profiles[i].name, name) == 0)
			return &c->profiles[i];
	return NULL;
}

/* One line per knob whose value differs between two versions of a
 * profile; a missing version or key reads as "(not set)". */
static bool
log_profile_changes(const char *name, json_object *old, json_object *new_)
{
	bool changed = false;

	for (size_t k = 0; k < knobs_count; k++) {
		const char *key = knobs_table[k].name;
		json_object *a = NULL, *b = NULL;
		char *sa, *sb;

		if (old != NULL)
			json_object_object_get_ex(old, key, &a);
		if (new_ != NULL)
			json_object_object_get_ex(new_, key, &b);
		if (a == NULL && b == NULL)
			continue;
		if (a != NULL && b != NULL && json_object_equal(a, b))
			continue;
		sa = a ? json_text(a) : NULL;
		sb = b ? json_text(b) : NULL;
		log_info("config: [profile %s] %s: %s -> %s", name, key,
		    sa ? sa : "(not set)", sb ? sb : "(not set)");
		free(sa);
		free(sb);
		changed = true;
	}
	return changed;
}

void
conffile_log_changes(const struct config *old, const struct config *new_)
{
	bool changed = false;

	if (strcmp(old->path, new_->path) != 0) {
		log_info("config: file %s -> %s", *old->path ? old->path :
		    "(none)", *new_->path ? new_->path : "(none)");
		changed = true;
	}
	for (size_t i = 0; i < confkeys_count; i++) {
		bool seta, setb;
		char *a = global_text(old, i, &seta);
		char *b = global_text(new_, i, &setb);

		if (a == NULL || b == NULL || seta != setb ||
		    strcmp(a, b) != 0) {
			log_info("config: %s: %s -> %s", confkeys[i].name,
			    seta && a ? a : "(not set)",
			    setb && b ? b : "(not set)");
			changed = true;
		}
		free(a);
		free(b);
	}
	for (size_t i = 0; i < old->nprofiles; i++) {
		const struct conffile_profile *p = &old->profiles[i];
		const struct conffile_profile *q = profile_find(new_, p->name);

		if (q == NULL) {
			log_info("config: [profile %s] removed", p->name);
			changed = true;
		} else if (log_profile_changes(p->name, p->args, q->args))
			changed = true;
	}
	for (size_t i = 0; i < new_->nprofiles; i++) {
		const struct conffile_profile *q = &new_->profiles[i];

		if (profile_find(old, q->name) != NULL)
			continue;
		log_info("config: [profile %s] added", q->name);
		log_profile_changes(q->name, NULL, q->args);
		changed = true;
	}
	if (!changed)
		log_info("config: nothing changed");
}
