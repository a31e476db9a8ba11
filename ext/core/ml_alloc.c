/*
** SPDX-License-Identifier: MIT
**
** ml_alloc.c -- the core's allocator: every byte mleval holds comes from
** SQLite's allocator, so SQLITE_CONFIG_MALLOC fault injection reaches it and
** sqlite3_memory_used() accounts for it.  (Redis sds.c keeps its allocator
** behind a tiny header for the same reason: the core can be reused by
** swapping this one file.)
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_core.h"

void *ml_malloc(uint64_t n){ return sqlite3_malloc64(n); }
void *ml_realloc(void *p, uint64_t n){ return sqlite3_realloc64(p, n); }
void ml_free(void *p){ sqlite3_free(p); }
