/*
** SPDX-License-Identifier: MIT
**
** multiclass_long_impl.h -- what the long layout's files share:
** multiclass_long.c (the reader, the assembly, the results, the records),
** multiclass_long_ids.c (what an id is: tags, interning, how a message
** names it) and multiclass_long_window.c (window mode, rule 7).  The
** rules are multiclass_long.c's.
*/
#ifndef ML_MULTICLASS_LONG_IMPL_H
#define ML_MULTICLASS_LONG_IMPL_H

#include "multiclass.h"

#define LG_DIRECT   ((ml_i64)1<<43)      /* INTEGER ids in [-2^43, 2^43) are their own tag */
#define LG_INTERNED ((ml_i64)1<<44)      /* interned ids' tags start here */
#define LG_MAX_IDS  ((ml_i64)1<<44)

/* An interned id (rule 6): its type and bytes in the arena. */
typedef struct LgId { uint64_t h; ml_i64 off; int n, type; } LgId;

typedef struct LgAgg {
  int failed;
  int width;                 /* 16, or 24 (a twin: w after p) */
  int fast;                  /* set up, not failed, not in window mode: lg_fast may take a row */
  int isProb;                /* p must lie in [0, 1] (MC_IS_PROB) */
  unsigned char *rec;        /* records [head, head + n), in arrival order */
  ml_i64 head, n, cap;
  int unsorted;              /* 0: rec is in key order, each key <= last */
  ml_key last;               /* the last key appended (rule 1) */
  MlParam par[3];            /* the parameters (rule 5) */
  LgId *ids;                 /* interned ids, their hash slots (index + 1; 0 empty) */
  ml_i64 nId, capId;
  uint32_t *slot;            /* open addressing, power-of-two size */
  ml_i64 nSlot;
  unsigned char *arena;
  ml_i64 nArena, capArena;
  struct LgWin *win;         /* window mode (rule 7): rec kept sorted, the ids kept assembled */
} LgAgg;

/* Window mode (rule 7), from a group's first xValue: the records stay
** sorted by (id, class, y) -- a class-row entering or leaving moves the
** records on the nearer side of its place -- and the ids of the frame stay
** assembled in one wide window store (mc), so a frame costs the wide
** window's work, not a sort and assembly of the frame. */
typedef struct LgWin {
  void *mc;                  /* the wide store: every well-formed id of k = K whose weight is > 0 */
  int K;                     /* its k (0: not yet built) */
  ml_i64 nBad;               /* ids of the frame that break rule 3 */
  ml_i64 nGood[MC_MAX_K+1];  /* well-formed ids of the frame by k (weight 0 included) */
  ml_i64 nGoodW;             /* well-formed ids of weight > 0 */
} LgWin;

/* The record of a class-row (rule 6): its key is the code t 256 + class 16
** + y itself, an integer in [0, 2^53) whose unsigned order is (id, class)
** order. */
static inline ml_key lg_key(ml_i64 tag, int c, int y){ return (ml_key)(tag*256 + c*16 + y); }

/* A record's parts. */
static inline ml_i64 lg_code(const unsigned char *r){ ml_key k; memcpy(&k, r, 8); return (ml_i64)k; }
static inline double lg_p(const unsigned char *r){ double p; memcpy(&p, r + 8, 8); return p; }
static inline double lg_w(const unsigned char *r, int width){
  double w = 1.0;
  if( width==24 ) memcpy(&w, r + 16, 8);
  return w;
}

/* One id's run of sorted records, read (rules 3, 4): what lg_assemble
** checks of it, the rows of a window's frame by the same code. */
enum { LG_RUN_SKIP, LG_RUN_BAD, LG_RUN_GOOD };
typedef struct LgRun {
  ml_i64 tag, m;             /* the id, its records */
  int status;                /* SKIP: a NULL in a row (rule 4); BAD: rule 3 broken (classes, y, w, sum) */
  int ok;                    /* its classes are 0..m-1, each once */
  int y, k;                  /* GOOD: the class and k = m */
  double w;                  /* GOOD: the weight */
  double sum;                /* the probabilities' sum (a probability kind) */
  int cls[MC_MAX_K], yv[MC_MAX_K];
  double s[MC_MAX_K], wv[MC_MAX_K];
} LgRun;

/* multiclass_long_ids.c: the tag of the id v (rules 2, 6); -1 out of
** memory, -2 not held (add 0), -3 too many ids.  And the id of a tag as a
** message shows it: 7, 'a7', 1.5, a blob of 3 bytes. */
ml_i64 ml_mcl_tag(LgAgg *L, sqlite3_value *v, int add);
void ml_mcl_describe(const LgAgg *L, ml_i64 t, char *z, int nz);

/* multiclass_long.c: the aggregate's buffers freed (window mode's too), the
** group failed, the shared sort of records, a run read, the ids assembled
** into a wide store, a result (xFinal or a window's value, assembled
** afresh). */
void ml_mcl_clear(LgAgg *L);
void ml_mcl_fail(LgAgg *L);
void ml_mcl_sort(unsigned char *rec, ml_i64 n, int W, void *scratch);
ml_i64 ml_mcl_run_read(const unsigned char *rec, ml_i64 i, ml_i64 n, int W, int isProb, LgRun *R);
int ml_mcl_assemble(sqlite3_context *ctx, const MlFuncDesc *d, const LgAgg *L, const unsigned char *rec,
                    ml_i64 n, void *mc);
void ml_mcl_result(sqlite3_context *ctx, LgAgg *L, int isFinal);

/* multiclass_long_window.c (rule 7): a class-row entering (sign +1) or
** leaving (-1) a window's frame (ML_OK, ML_NOMEM, or ML_ERROR set); a
** frame's value (isFinal: the last); window mode's memory freed. */
int ml_mcl_win_update(sqlite3_context *ctx, const MlFuncDesc *d, LgAgg *L, ml_key key, double p, double w,
                      int sign);
void ml_mcl_win_value(sqlite3_context *ctx, LgAgg *L, int isFinal);
void ml_mcl_win_free(LgAgg *L);

#endif /* ML_MULTICLASS_LONG_IMPL_H */
