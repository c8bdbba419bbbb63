/* What the views of capacity records call each directory: its label,
 * else its path, with the host when the records come from several; and,
 * where two directories would be called alike (two searches of one
 * directory, two copies of one label), the search's id and then the
 * directory's place in it, so no two columns or ranks share a name. */
#ifndef STRESSCTL_CAPNAME_H
#define STRESSCTL_CAPNAME_H

#include <stdbool.h>
#include <stddef.h>

#include "caprec.h"

/* Whether the n records come from more than one host. */
bool	 capname_several_hosts(const struct caprec *const *recs, int n);
/* The name of directory k of rec among every directory of the n records
 * (rec one of them); malloc'd. */
char	*capname_dir(const struct caprec *const *recs, int n,
	    const struct caprec *rec, size_t k);

#endif
