/* Placeholder until the record commands land; see records.h. */
#include "records.h"
