/* The command table: one entry per control command, from which both
 * dispatch and `help` are generated, and the daemon state the handlers
 * share (the current or last run). */
#ifndef STRESSD_COMMANDS_H
#define STRESSD_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

struct control_conn;

struct command {
	const char	*name;
	const char	*usage;
	const char	*summary;
	bool		 read_only;	/* false: changes state, logged */
	void		(*handler)(struct control_conn *, json_object *args,
			    json_object *id);
};

const struct command	*commands_find(const char *name);

struct event_base;
struct config;
/* The configuration for runs started from now (profiles, allowed_dirs,
 * the default sample interval); borrowed until the next call. */
void	commands_set_config(const struct config *cfg);
int	commands_init(struct event_base *base, const char *state_dir,
	    const char *socket_path);
/* Called by the main loop's timer: advances the run, answers waiters. */
void	commands_tick(void);
/* SIGTERM/SIGINT: stop the run (drain, or discard on a second signal or
 * a drain timeout); why becomes the run's reason. */
void	commands_shutdown(bool drain, const char *why);
/* True once no run is active (the daemon may exit). */
bool	commands_quiescent(void);
/* Updates the run has written or failed so far, and with an rrdcached
 * target the values it wrote (drain progress). */
uint64_t commands_updates_done(void);
/* A writer of the run inside one librrd call for longer than limit s. */
bool	commands_stuck(double limit);
/* One line for systemd's STATUS=. */
void	commands_summary(char *buf, size_t len);
void	commands_finish(void);
/* Render the Prometheus metrics (a prom_render_fn). */
struct evbuffer;
void	commands_metrics(struct evbuffer *out, void *arg);

#endif
