#include <stdio.h>
#include <string.h>
#include <rrd.h>

#include "rrdfile.h"

int
rrdfile_path(const struct stress_params *p, uint32_t n, char *buf, size_t len)
{
	int r;

	if (p->files_per_dir > 0)
		r = snprintf(buf, len, "%s/%llu/%u.rrd", p->dir,
		    (unsigned long long)(n / p->files_per_dir), n);
	else
		r = snprintf(buf, len, "%s/%u.rrd", p->dir, n);
	return r < 0 || (size_t)r >= len ? -1 : 0;
}

void
rrdfile_error(const char *path, char *err, size_t errlen)
{
	const char *msg = rrd_get_error();

	if (msg == NULL || *msg == '\0')
		msg = "unknown librrd error";
	/* librrd usually names the file; make sure the message always does. */
	if (strstr(msg, path) != NULL)
		snprintf(err, errlen, "%s", msg);
	else
		snprintf(err, errlen, "%.2000s: %s", path, msg);
	rrd_clear_error();
}

int
rrdfile_create(const struct stress_params *p, const char *path,
    time_t last_up, char *err, size_t errlen)
{
	char ds[64][48];
	const char *argv[64 + KNOBS_MAX_RRAS];
	int argc = 0;

	for (uint64_t i = 0; i < p->data_sources; i++) {
		snprintf(ds[i], sizeof(ds[i]), "DS:ds%llu:GAUGE:%llu:U:U",
		    (unsigned long long)i, (unsigned long long)(2 * p->step));
		argv[argc++] = ds[i];
	}
	for (size_t i = 0; i < p->nrras; i++)
		argv[argc++] = p->rras[i];
	rrd_clear_error();
	if (rrd_create_r(path, p->step, last_up, argc, argv) != 0) {
		rrdfile_error(path, err, errlen);
		return -1;
	}
	return 0;
}

static int
layout_key(const char *key)
{
	static const char *const suffix[] = {
		"].type", "].minimal_heartbeat", "].min", "].max", "].cf",
		"].rows", "].pdp_per_row", "].xff", NULL
	};

	if (strcmp(key, "step") == 0)
		return 1;
	if (strncmp(key, "ds[", 3) != 0 && strncmp(key, "rra[", 4) != 0)
		return 0;
	for (int i = 0; suffix[i] != NULL; i++) {
		size_t kl = strlen(key), sl = strlen(suffix[i]);

		if (kl > sl && strcmp(key + kl - sl, suffix[i]) == 0 &&
		    strchr(key, '.') == strrchr(key, '.'))
			return 1;
	}
	return 0;
}

int
rrdfile_layout(const char *path, char *out, size_t outlen, time_t *last,
    char *err, size_t errlen)
{
	rrd_info_t *info, *i;
	size_t used = 0;

	rrd_clear_error();
	if ((info = rrd_info_r(path)) == NULL) {
		rrdfile_error(path, err, errlen);
		return -1;
	}
	out[0] = '\0';
	*last = 0;
	for (i = info; i != NULL; i = i->next) {
		char val[64];

		if (strcmp(i->key, "last_update") == 0 && i->type == RD_I_CNT)
			*last = (time_t)i->value.u_cnt;
		if (!layout_key(i->key))
			continue;
		switch (i->type) {
		case RD_I_VAL:
			snprintf(val, sizeof(val), "%g", i->value.u_val);
			break;
		case RD_I_CNT:
			snprintf(val, sizeof(val), "%lu", i->value.u_cnt);
			break;
		case RD_I_STR:
			snprintf(val, sizeof(val), "%s", i->value.u_str);
			break;
		default:
			continue;
		}
		used += (size_t)snprintf(out + used, used < outlen ?
		    outlen - used : 0, "%s=%s ", i->key, val);
	}
	rrd_info_free(info);
	if (used >= outlen) {
		snprintf(err, errlen, "%s: layout too large to compare", path);
		return -1;
	}
	return 0;
}

const char *
rrdfile_librrd_version(void)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "%s", rrd_strversion());
	return buf;
}
