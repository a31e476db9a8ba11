/*
** ml_conc.c -- Harrell's and Uno's concordance over plain arrays, with the
** pair counts and the infinitesimal-jackknife influence of every row.
** SPDX-License-Identifier: MIT
**
** Provides ml_concordance() and ml_conc_var() (ml_conc.h), behind the
** survival family's c_index, c_index_ci, uno_c and c_index_diff.  The
** anchor is R survival's concordance(..., reverse = TRUE) (its
** src/concordance3.c, read, not copied): the same counts, the same estimate
** expression and the same dfbeta, computed in another order.
**
** Rules (SPEC "Round 5", conventions 1, 2, 3, 6, 7, 8; ml_conc.h says them
** per pair):
**   1. The rows are sorted twice: by risk, to give each row its dense rank
**      among the m distinct risks, then by time (a scatter back to row
**      order when the caller's times are ascending).  A time group (the
**      rows of one time) is walked as survival walks it: its censorings are
**      at risk for its events, its events are not compared with one another
**      (tied_time / tied_both; a row of weight w is w rows tied in both,
**      w (w - 1)/2 pairs: tied_self).
**   2. Counts: one walk from the latest time to the earliest over a Fenwick
**      tree of the weights of the rows already passed (the later rows), by
**      risk rank: an event at T <= tau reads the weight below, at, and above
**      its rank.  A time group's sums are formed first and multiplied by its
**      pair weight once (1, or 1/G(T-)^2 read from the group's first event),
**      so that integer weights give the counts of their repeated rows bit
**      for bit, Uno's included: within a group every sum is an integer.
**   3. Estimate: survival's expression, 1 - ((d - c)/npair + 1)/2 with
**      npair = c + d + tied_risk, so that exact counts give R's double.
**   4. Influence (only when dfbeta is asked for): row i's weighted count of
**      concordant minus discordant pairs it belongs to, a_i, and of all its
**      comparable pairs, N_i -- as the earlier row (read in walk 2) and as
**      the later row (a second walk, earliest time first, over a tree of the
**      earlier events' pair weights).  D_i = (a_i/npair + N_i s/npair)/2
**      with s = (d - c)/npair, the derivative of the estimate in row i's
**      weight: survival 3.5's dfbeta with reverse = TRUE, per unit weight,
**      in survival's floating-point expression.
**   5. var = sum_i w_i D_i^2, exactly summed (ml_conc_var): an integer
**      weight k is k repeated rows, bit for bit.
**   6. No comparable pair: estimate, var and every D_i are NaN (R's 0/0).
**
** Cost: two radix sorts of 16-byte records; the walks take O(log m) Fenwick
** steps per row (one update per row and one query per event for the counts;
** one query per row and one update per event more for the influence).
** Scratch: 32 bytes per row while sorting (the records and the sort's),
** then 16 bytes per row (the records) beside 24 bytes per distinct risk
** (32 when a second tree is needed) and, with dfbeta, 8 bytes per row;
** freed before returning.
*/
#include "ml_conc.h"

/* A sort record's payload (MlRec16.aux, as bits): rank << 33 | row << 1 |
** event.  The radix sort copies records whole and reads only the key. */
#define V_EVENT(v) ((int)((v) & 1))
#define V_ROW(v)   ((ml_i64)(((v) >> 1) & 0xFFFFFFFFu))
#define V_RANK(v)  ((ml_i64)((v) >> 33))
#define CONC_MAX_ROWS ((ml_i64)1 << 31)
#define STOP_EVERY 0x3FFFF        /* ml_stop_requested every 2^18 rows */

static inline uint64_t rec_v(const MlRec16 *r){ uint64_t v; memcpy(&v, &r->aux, 8); return v; }
static inline void rec_set_v(MlRec16 *r, uint64_t v){ memcpy(&r->aux, &v, 8); }

/* A Fenwick tree of weights by risk rank (t, 1-based), the weight at each
** rank (eq), a group's scratch per rank (grp, zero between groups), and
** the total.  The weight above a rank is tot - below - at when every sum
** is an exact integer (exact: unit or integer weights, Harrell's pair
** weights); otherwise that difference could leave 1e-16 where nothing lies
** above, and a second tree over the reversed ranks (u) reads it directly. */
typedef struct ConcTree {
  double *t, *u, *eq, *grp;
  ml_i64 m;
  double tot;
  int exact;
} ConcTree;

static void tree_clear(ConcTree *f, int exact){
  memset(f->t, 0, sizeof(double)*(size_t)(f->m+1));
  if( !exact ) memset(f->u, 0, sizeof(double)*(size_t)(f->m+1));
  memset(f->eq, 0, sizeof(double)*(size_t)f->m);
  memset(f->grp, 0, sizeof(double)*(size_t)f->m);
  f->tot = 0.0;
  f->exact = exact;
}
static inline void tree_add(ConcTree *f, ml_i64 r, double x){
  ml_i64 i;
  f->eq[r] += x;
  f->tot += x;
  for(i=r+1; i<=f->m; i+=i&-i) f->t[i] += x;
  if( !f->exact ) for(i=f->m-r; i<=f->m; i+=i&-i) f->u[i] += x;
}
/* The weight of ranks below r. */
static inline double tree_below(const ConcTree *f, ml_i64 r){
  double s = 0.0;
  ml_i64 i;
  for(i=r; i>0; i-=i&-i) s += f->t[i];
  return s;
}
/* The weight of ranks above r (below and at: what the caller read). */
static inline double tree_above(const ConcTree *f, ml_i64 r, double below, double at){
  double s = 0.0;
  ml_i64 i;
  if( f->exact ) return f->tot - below - at;
  for(i=f->m-1-r; i>0; i-=i&-i) s += f->u[i];
  return s;
}

/* The pair weight of a time group's events: 0 past tau, else 1 (Harrell)
** or 1/G(T-)^2 (Uno, from the group's first event row). */
static double group_weight(const MlRec16 *rec, ml_i64 lo, ml_i64 hi,
                           const double *g_left, double tau){
  ml_i64 q;
  if( !(ml_double_of(rec[lo].key)<=tau) ) return 0.0;
  if( g_left==0 ) return 1.0;
  for(q=lo; q<hi; q++){
    uint64_t v = rec_v(rec+q);
    if( V_EVENT(v) ){ double g = g_left[V_ROW(v)]; return 1.0/(g*g); }
  }
  return 0.0;
}

/* Whether time[] is ascending already (the caller's rows sorted by time):
** the second sort is then a scatter. */
static int times_ascending(ml_i64 n, const double *time){
  ml_i64 i;
  for(i=1; i<n; i++) if( time[i]<time[i-1] ) return 0;
  return 1;
}

/* Sorts the rows by risk, then by time (rule 1), in a (n records) with b
** as scratch (n records + ML_RADIX_EXTRA bytes).  The records end in time
** order, each with its rank, row and event in its payload: in b when the
** times were ascending (ordered: scattered back to row order, no second
** sort), else in a.  *pRec = that array; *pm = the number of distinct
** risks.  Returns 1 when stopped. */
static int conc_sort(ml_i64 n, const double *time, const int *event, const double *risk,
                     int ordered, MlRec16 *a, MlRec16 *b, MlRec16 **pRec, ml_i64 *pm){
  ml_i64 i, m = 0;
  ml_key prev = 0;
  for(i=0; i<n; i++){
    a[i].key = ml_key_of(risk[i]);
    rec_set_v(a+i, (uint64_t)i);
  }
  if( ml_radix_sort(a, n, 16, b) ) return 1;
  for(i=0; i<n; i++){
    ml_i64 row = (ml_i64)rec_v(a+i);
    MlRec16 *r = ordered ? b + row : a + i;
    if( i>0 && a[i].key!=prev ) m++;
    prev = a[i].key;
    r->key = ml_key_of(time[row]);
    rec_set_v(r, (uint64_t)m<<33 | (uint64_t)row<<1 | (uint64_t)(event[row]!=0));
  }
  *pm = n>0 ? m+1 : 0;
  *pRec = ordered ? b : a;
  return ordered ? 0 : ml_radix_sort(a, n, 16, b);
}

/* Walk 2 (rule 2), latest time first: the counts into out, and (a, nn not
** NULL) each event's a_i and N_i as the earlier row.  Returns 1 when
** stopped. */
static int walk_counts(const MlRec16 *rec, ml_i64 n, const double *w, const double *g_left,
                       double tau, ConcTree *f, MlConc *out, double *a, double *nn){
  double c = 0.0, d = 0.0, tr = 0.0, tt = 0.0, tb = 0.0, ts = 0.0;
  ml_i64 p = n, q, lo, done = 0;
  while( p>0 ){
    ml_key k = rec[p-1].key;
    double tw;
    int nev = 0;
    for(lo=p-1; lo>0 && rec[lo-1].key==k; lo--){}
    for(q=lo; q<p; q++){                 /* censorings: at risk for the group's events */
      uint64_t v = rec_v(rec+q);
      if( V_EVENT(v) ) nev++;
      else tree_add(f, V_RANK(v), w ? w[V_ROW(v)] : 1.0);
    }
    if( nev && (tw = group_weight(rec, lo, p, g_left, tau))>0.0 ){
      double gc = 0.0, gd = 0.0, gt = 0.0, gtt = 0.0, gtb = 0.0, gts = 0.0, dw = 0.0;
      for(q=lo; q<p; q++){
        uint64_t v = rec_v(rec+q);
        ml_i64 r = V_RANK(v), row = V_ROW(v);
        double wi, below, at, above;
        if( !V_EVENT(v) ) continue;
        wi = w ? w[row] : 1.0;
        below = tree_below(f, r);
        at = f->eq[r];
        above = tree_above(f, r, below, at);
        gc += wi*below;
        gd += wi*above;
        gt += wi*at;
        gtt += wi*dw;                    /* events of this time met before */
        dw += wi;
        gtb += wi*f->grp[r];             /* ... of this risk too */
        gts += wi*(wi - 1.0)/2.0;        /* the pairs among this row's copies */
        f->grp[r] += wi;
        if( a ){
          a[row] = tw*(below - above);
          nn[row] = tw*(below + at + above);
        }
      }
      c += tw*gc; d += tw*gd; tr += tw*gt;
      tt += tw*(gtt - gtb); tb += tw*(gtb + gts); ts += tw*gts;
    }
    for(q=lo; q<p; q++){                 /* the group's events join the later rows */
      uint64_t v = rec_v(rec+q);
      if( !V_EVENT(v) ) continue;
      f->grp[V_RANK(v)] = 0.0;
      tree_add(f, V_RANK(v), w ? w[V_ROW(v)] : 1.0);
    }
    done += p - lo;
    if( done>STOP_EVERY ){ done = 0; if( ml_stop_requested() ) return 1; }
    p = lo;
  }
  out->concordant = c; out->discordant = d; out->tied_risk = tr;
  out->tied_time = tt; out->tied_both = tb; out->tied_self = ts;
  return 0;
}

/* Adds to a[row], nn[row] what the earlier events compared with row give. */
static inline void later_row(const ConcTree *f, uint64_t v, double *a, double *nn){
  ml_i64 r = V_RANK(v), row = V_ROW(v);
  double below = tree_below(f, r), at = f->eq[r];
  double above = tree_above(f, r, below, at);
  a[row] += above - below;        /* an earlier event of higher risk: concordant */
  nn[row] += below + at + above;
}

/* Walk 3 (rule 4), earliest time first: each row's a_i and N_i as the later
** row, over a tree of the earlier events' pair weights.  Returns 1 when
** stopped. */
static int walk_later(const MlRec16 *rec, ml_i64 n, const double *w, const double *g_left,
                      double tau, ConcTree *f, double *a, double *nn){
  ml_i64 p = 0, q, hi, done = 0;
  while( p<n ){
    ml_key k = rec[p].key;
    double tw;
    for(hi=p+1; hi<n && rec[hi].key==k; hi++){}
    for(q=p; q<hi; q++){                 /* events: the earlier times' events */
      uint64_t v = rec_v(rec+q);
      if( V_EVENT(v) ) later_row(f, v, a, nn);
    }
    tw = group_weight(rec, p, hi, g_left, tau);
    if( tw>0.0 ){
      for(q=p; q<hi; q++){
        uint64_t v = rec_v(rec+q);
        if( V_EVENT(v) ) tree_add(f, V_RANK(v), tw*(w ? w[V_ROW(v)] : 1.0));
      }
    }
    for(q=p; q<hi; q++){                 /* censorings: this time's events too */
      uint64_t v = rec_v(rec+q);
      if( !V_EVENT(v) ) later_row(f, v, a, nn);
    }
    done += hi - p;
    if( done>STOP_EVERY ){ done = 0; if( ml_stop_requested() ) return 1; }
    p = hi;
  }
  return 0;
}

/* Rules 3, 4, 6: the estimate and, with a, each D_i into a. */
static void conc_finish(ml_i64 n, MlConc *out, double *a, const double *nn){
  double npair = out->concordant + out->discordant + out->tied_risk;
  double somer = (out->discordant - out->concordant)/npair;   /* survival's, not reversed */
  double sn = somer/npair;
  ml_i64 i;
  out->estimate = npair>0.0 ? 1.0 - (somer + 1.0)/2.0 : NAN;
  if( a==0 ) return;
  for(i=0; i<n; i++) a[i] = npair>0.0 ? (a[i]/npair + sn*nn[i])/2.0 : NAN;
}

/* Whether every sum of the weights is an exact integer (rule 2's exact
** mode): no weights, or integer weights whose total stays below 2^53. */
static int weights_integral(ml_i64 n, const double *w){
  double tot = 0.0;
  ml_i64 i;
  if( w==0 ) return n < ((ml_i64)1<<53);
  for(i=0; i<n; i++){
    if( w[i]!=floor(w[i]) ) return 0;
    tot += w[i];
  }
  return tot < 9007199254740992.0;
}

int ml_concordance(ml_i64 n, const double *time, const int *event,
                   const double *risk, const double *w, const double *g_left,
                   double tau, MlConc *out, double *dfbeta){
  unsigned char *a = 0, *b = 0;
  MlRec16 *rec;
  double *nn = 0, *tree = 0;
  uint64_t nTree;
  ConcTree f;
  ml_i64 m = 0;
  int rc = ML_OK, exact, needU, ordered;
  memset(out, 0, sizeof(*out));
  out->var = NAN;
  if( n<=0 ){
    out->estimate = NAN;
    return ML_OK;
  }
  if( n>=CONC_MAX_ROWS ) return ML_NOMEM;
  exact = weights_integral(n, w);
  needU = !exact || (dfbeta && g_left);   /* Uno's later walk is not exact */
  ordered = times_ascending(n, time);
  /* a: the records, b: the sort's scratch; once sorted, the array the
  ** records did not end in is freed, then the trees' (3 or 4) m + 2
  ** doubles are allocated for the m distinct risks, and nn */
  a = ml_malloc((uint64_t)n*16);
  b = ml_malloc((uint64_t)n*16 + ML_RADIX_EXTRA);
  if( a==0 || b==0 ){ rc = ML_NOMEM; goto done; }
  if( conc_sort(n, time, event, risk, ordered, (MlRec16*)a, (MlRec16*)b, &rec, &m) ){
    rc = ML_STOPPED;
    goto done;
  }
  if( (unsigned char*)rec==a ){ ml_free(b); b = 0; }else{ ml_free(a); a = 0; }
  nTree = ((uint64_t)m*(needU ? 4 : 3) + 2)*8;
  tree = ml_malloc(nTree);
  if( dfbeta ) nn = ml_malloc((uint64_t)n*8);
  if( tree==0 || (dfbeta && nn==0) ){ rc = ML_NOMEM; goto done; }
  f.m = m;
  f.t = tree;
  f.u = f.t + m + 1;
  f.eq = f.u + (needU ? m + 1 : 0);
  f.grp = f.eq + m;
  tree_clear(&f, exact);
  if( dfbeta ){
    memset(dfbeta, 0, sizeof(double)*(size_t)n);
    memset(nn, 0, sizeof(double)*(size_t)n);
  }
  if( walk_counts(rec, n, w, g_left, tau, &f, out, dfbeta, nn) ){ rc = ML_STOPPED; goto done; }
  if( dfbeta ){
    /* Uno's pair weights make the later walk's sums non-integral */
    tree_clear(&f, exact && g_left==0);
    if( walk_later(rec, n, w, g_left, tau, &f, dfbeta, nn) ){ rc = ML_STOPPED; goto done; }
  }
  conc_finish(n, out, dfbeta, nn);
  if( dfbeta ) out->var = ml_conc_var(n, dfbeta, 0, w);
done:
  ml_free(a);
  ml_free(b);
  ml_free(tree);
  ml_free(nn);
  return rc;
}

double ml_conc_var(ml_i64 n, const double *a, const double *b, const double *w){
  MlXsum s;
  ml_i64 i;
  ml_xsum_init(&s);
  for(i=0; i<n; i++){
    double x = b ? a[i] - b[i] : a[i];
    if( w ) ml_xsum_add_product(&s, w[i], x*x, 1);
    else ml_xsum_add(&s, x*x, 1);
  }
  return ml_xsum_round(&s);
}
