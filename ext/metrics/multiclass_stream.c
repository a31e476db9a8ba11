/*
** SPDX-License-Identifier: MIT
**
** multiclass_stream.c -- the streaming kinds of the multiclass family
** (mc_log_loss, mc_brier, ordinal_rps, mc_top_k, mc_confusion,
** mc_calibration): the sums a group keeps in place of its rows (McStream,
** multiclass_impl.h), a row added or removed, and each kind's result from
** them.  multiclass.c reads the rows and calls these (multiclass_impl.h).
**
** Rules (numbered as in multiclass.c, whose other rules hold here):
**   7. Streaming kinds (mc_log_loss, mc_brier, ordinal_rps, mc_top_k,
**      mc_confusion, mc_calibration) keep no row: exact sums (ml_xsum)
**      of the rows' terms and weights, or integer counts -- the means' sum
**      of w t and of w; top k's rows by (classes above, ties) or, weighted,
**      k sums; the confusion cells; mc_calibration's (k + 1) bins per bin
**      count: rows, positives and the exact sums of w, w 1[lab], w p --
**      so xInverse subtracts exactly, O(k) a row, and a window frame equals
**      the aggregate over its rows bit for bit.
**   9. mc_top_k: a true class tied at place m counts the share of its tied
**      places inside the first m (order-independent; docs/multiclass.md).
**
** Cost: no row held: O(k) a row entering or leaving, O(k^2) (mc_calibration
** O(k B)) a result; 2 exact sums (1.1 KB) for a mean, 16^2 counts (+ k or
** up to 256 exact sums weighted) for top k and the matrix, (k + 1) B bins of
** 24 bytes (+ 568 or 1704 per bin used) for mc_calibration.  O(n k) and
** nothing allocated for mc_log_loss / mc_brier / ordinal_rps; one pass over
** the k scores for mc_top_k (the true class's place, no sort; its common
** row counted in its own step, multiclass.c's rule 13): 1 075 Ir/row,
** 1.05x floor4 (callgrind, 10^5 rows).
*/
#include <float.h>
#include <math.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3
#include "ml_sql.h"
#include "multiclass_impl.h"

#define MC_EPS   1e-15

/* ------------------------------------------------------ streaming sums */

/* A row's term of mc_log_loss, mc_brier or ordinal_rps (rule 2). */
static double mc_term(int kind, int k, int y, const double *s){
  double t = 0.0;
  int j;
  if( kind==MC_LOG_LOSS ){
    double q = s[y];
    return -log(q<MC_EPS ? MC_EPS : q);
  }
  if( kind==MC_RPS ){                        /* cumulative over the first k-1 classes */
    double F = 0.0;
    for(j=0; j<k-1; j++){
      double e;
      F += s[j];
      e = F - (y<=j ? 1.0 : 0.0);
      t += e*e;
    }
    return t / (double)(k - 1);
  }
  for(j=0; j<k; j++){
    double e = (j==y ? 1.0 : 0.0) - s[j];
    t += e*e;
  }
  return t;
}

/* top_k_accuracy's hit of a row whose true class has `above` classes
** scoring higher and `tied` equal (itself included), at m places: 1 when
** its ties fit in the first m, else the share of its tied places there. */
static double mc_hit(int m, int above, int tied){
  return m>=above + tied ? 1.0 : (double)(m - above) / (double)tied;
}

/* n exact sums, initialised; 0 when out of memory. */
static MlXsum *mc_xsums(int n){
  MlXsum *x = ml_malloc((uint64_t)n*sizeof(MlXsum));
  int i;
  for(i=0; x && i<n; i++) ml_xsum_init(&x[i]);
  return x;
}

void ml_mc_stream_free(McAgg *p){
  McStream *ss = p->ss;
  ml_i64 i;
  int c;
  if( ss==0 ) return;
  for(c=0; ss->x && c<MC_MAX_K*MC_MAX_K; c++) ml_free(ss->x[c]);
  ml_free(ss->x);
  for(i=0; ss->bin && i<(ml_i64)(p->k + 1)*ss->B; i++) ml_free(ss->bin[i].x);
  ml_free(ss->bin);
  ml_free(ss);
  p->ss = 0;
}

/* The weight w (> 0) as the sums hold it: w 2^-e0, e0 the exponent of the
** group's first weight (rule 15), or 0 once a row of weight 1 is counted. */
static double mc_wscaled(McAgg *p, double w){
  if( !p->e0set ){ p->e0 = ilogb(w); p->e0set = 1; }
  return p->e0==0 ? w : ldexp(w, -p->e0);
}

/* The weighted sums' pointers (top k, confusion), made on first use. */
static int mc_stream_x(McStream *ss){
  if( ss->x ) return ML_OK;
  if( (ss->x = ml_malloc(MC_MAX_K*MC_MAX_K*sizeof(MlXsum*)))==0 ) return ML_NOMEM;
  memset(ss->x, 0, MC_MAX_K*MC_MAX_K*sizeof(MlXsum*));
  return ML_OK;
}

/* The sums turn from counts to weights (a weighted state joins an
** unweighted function's group): each count c becomes the exact sum of c
** weights 1 (e0 is then 0).  ML_OK or ML_NOMEM. */
int ml_mc_stream_weigh(McAgg *p, int kind){
  McStream *ss = p->ss;
  int k = p->k, a, t, m;
  if( p->wmode ) return ML_OK;
  p->wmode = 1;
  if( ss==0 ) return ML_OK;
  if( ss->sum ) ml_xsum_add_n(&ss->sum[1], 1.0, p->n, 1);   /* the means' rows so far, each weighing 1 */
  if( (kind==MC_TOP_K || kind==MC_CONFUSION) && mc_stream_x(ss) ) return ML_NOMEM;
  if( kind==MC_TOP_K && (ss->x[0] = mc_xsums(k))==0 ) return ML_NOMEM;
  for(a=0; kind==MC_TOP_K && a<k; a++){
    for(t=1; t<=k; t++){
      ml_i64 c = ss->cnt[a*MC_MAX_K + t-1];
      if( c==0 ) continue;
      ml_xsum_add_n(ss->x[0], 1.0, c, 1);
      for(m=a+1; m<k; m++) ml_xsum_add_n(&ss->x[0][m], mc_hit(m, a, t), c, 1);
    }
  }
  for(a=0; kind==MC_CONFUSION && a<MC_MAX_K*MC_MAX_K; a++){
    if( ss->cnt[a]==0 ) continue;
    if( (ss->x[a] = mc_xsums(1))==0 ) return ML_NOMEM;
    ml_xsum_add_n(ss->x[a], 1.0, ss->cnt[a], 1);
  }
  if( kind==MC_CALIB && ss->bin ){
    ml_i64 i;
    for(i=0; i<(ml_i64)(k + 1)*ss->B; i++){
      McBin *b = &ss->bin[i];
      MlXsum *x;
      if( b->x==0 ) continue;
      if( (x = mc_xsums(3))==0 ) return ML_NOMEM;
      ml_xsum_add_n(&x[0], 1.0, b->n, 1);
      ml_xsum_add_n(&x[1], 1.0, b->npos, 1);
      x[2] = b->x[0];
      ml_free(b->x);
      b->x = x;
    }
  }
  return ML_OK;
}

/* Adds (sign +1) or removes (-1) c rows (y, s) of weight w each to the
** streaming sums (rule 7): counts, or (wmode) exact sums of the weights
** w 2^-e0, c w split into two exact parts.  ML_OK or ML_NOMEM. */
int ml_mc_stream_add(McAgg *p, int kind, int y, const double *s, double w, ml_i64 c, int sign){
  McStream *ss = p->ss;
  double wp[2];
  int k = p->k, nw = 0, i, j;
  if( ss==0 ){
    int mean = kind==MC_LOG_LOSS || kind==MC_BRIER || kind==MC_RPS, cnt = kind==MC_TOP_K || kind==MC_CONFUSION;
    size_t sz = sizeof(*ss) + (mean ? 2*sizeof(MlXsum) : 0) + (cnt ? MC_MAX_K*MC_MAX_K*sizeof(ml_i64) : 0);
    if( sign<0 ) return ML_OK;
    if( (ss = ml_malloc(sz))==0 ) return ML_NOMEM;
    memset(ss, 0, sz);
    if( mean ){
      ss->sum = (MlXsum*)(ss + 1);
      ml_xsum_init(&ss->sum[0]);
      ml_xsum_init(&ss->sum[1]);
    }
    if( cnt ) ss->cnt = (ml_i64*)(ss + 1);
    p->ss = ss;
  }
  if( p->wmode ){
    double v = mc_wscaled(p, w);
    wp[0] = (double)c*v;
    wp[1] = fma((double)c, v, -wp[0]);
    nw = wp[1]!=0.0 ? 2 : 1;
  }else if( !p->e0set ){
    p->e0set = 1;                            /* rows of weight 1: 2^0 */
    p->e0 = 0;
  }
  p->n += sign*c;
  if( kind==MC_LOG_LOSS || kind==MC_BRIER || kind==MC_RPS ){
    double t = mc_term(kind, k, y, s);
    if( !p->wmode ) ml_xsum_add_n(&ss->sum[0], t, c, sign);   /* den: the count n */
    for(i=0; i<nw; i++){
      ml_xsum_add_product(&ss->sum[0], wp[i], t, sign);
      ml_xsum_add(&ss->sum[1], wp[i], sign);
    }
  }else if( kind==MC_TOP_K ){
    /* the true class's place: the classes above it and its ties, one pass
    ** over the k scores, no sort (rule 9) */
    double sy = s[y];
    int above = 0, tied = 0, m;
    for(j=0; j<k; j++){
      above += s[j]>sy;
      tied += s[j]==sy;
    }
    if( !p->wmode ){
      ss->cnt[above*MC_MAX_K + tied-1] += sign*c;
      return ML_OK;
    }
    if( mc_stream_x(ss) || (ss->x[0]==0 && (ss->x[0] = mc_xsums(k))==0) ) return ML_NOMEM;
    for(i=0; i<nw; i++){
      ml_xsum_add(ss->x[0], wp[i], sign);
      for(m=above+1; m<k; m++) ml_xsum_add_product(&ss->x[0][m], wp[i], mc_hit(m, above, tied), sign);
    }
  }else if( kind==MC_CONFUSION ){
    int cell = y*MC_MAX_K + ml_mc_argmax(s, k);
    ss->cnt[cell] += sign*c;
    if( !p->wmode ) return ML_OK;
    if( mc_stream_x(ss) || (ss->x[cell]==0 && (ss->x[cell] = mc_xsums(1))==0) ) return ML_NOMEM;
    for(i=0; i<nw; i++) ml_xsum_add(ss->x[cell], wp[i], sign);
  }else{                                     /* MC_CALIB: k columns and the top label's */
    int top = ml_mc_argmax(s, k);
    if( ss->bin==0 ){
      ss->B = (ml_i64)ml_param_value(&p->par[0], 10.0);
      ss->bin = ml_malloc((uint64_t)(k + 1)*ss->B*sizeof(McBin));
      if( ss->bin==0 ) return ML_NOMEM;
      memset(ss->bin, 0, (size_t)(k + 1)*ss->B*sizeof(McBin));
    }
    for(j=0; j<=k; j++){
      int lab = j<k ? y==j : y==top;
      double v = s[j<k ? j : top];
      McBin *b = &ss->bin[j*ss->B + ml_calib_bin(v, ss->B)];
      if( b->x==0 && (b->x = mc_xsums(p->wmode ? 3 : 1))==0 ) return ML_NOMEM;
      b->n += sign*c;
      if( lab ) b->npos += sign*c;
      if( !p->wmode ){ ml_xsum_add_n(&b->x[0], v, c, sign); continue; }
      for(i=0; i<nw; i++){
        ml_xsum_add(&b->x[0], wp[i], sign);
        if( lab ) ml_xsum_add(&b->x[1], wp[i], sign);
        ml_xsum_add_product(&b->x[2], wp[i], v, sign);
      }
    }
  }
  return ML_OK;
}

/* ------------------------------------------------- confusion, top k */

/* A ratio, NaN (JSON null) when the denominator is 0. */
static double mc_ratio(double a, double b){ return b!=0.0 ? a / b : NAN; }

/* cohen_kappa_score's 1 - sum(w C) / sum(w E), E the outer product of the
** margins over n; wk 0: w = 1 off the diagonal, 1: |i - j|, 2: (i - j)^2. */
static double mc_kappa(const double *C, const double *rowS, const double *colS, double n, int K, int wk){
  double num = 0.0, den = 0.0;
  int i, j;
  for(i=0; i<K; i++){
    for(j=0; j<K; j++){
      double d = (double)(i>j ? i - j : j - i);
      double w = wk==0 ? (i!=j) : wk==1 ? d : d*d;
      num += w*C[i*K + j];
      den += w*(rowS[i]*colS[j] / n);
    }
  }
  return den!=0.0 ? 1.0 - num / den : NAN;
}

static void mc_confusion_json(sqlite3_context *ctx, const double *C, int K, double unscale){
  double rowS[MC_MAX_K], colS[MC_MAX_K], prec[MC_MAX_K], rec[MC_MAX_K], f1[MC_MAX_K];
  double n = 0.0, tr = 0.0, ba = 0.0, mf = 0.0, wf = 0.0, cov, vt = 0.0, vp = 0.0, tp = 0.0;
  int i, j, nba = 0, nmf = 0;
  MlJson js;
  for(i=0; i<K; i++){
    rowS[i] = colS[i] = 0.0;
  }
  for(i=0; i<K; i++){
    for(j=0; j<K; j++){ rowS[i] += C[i*K + j]; colS[j] += C[i*K + j]; }
  }
  for(i=0; i<K; i++){
    n += rowS[i];
    tr += C[i*K + i];
  }
  for(i=0; i<K; i++){
    double d = C[i*K + i];
    prec[i] = mc_ratio(d, colS[i]);
    rec[i] = mc_ratio(d, rowS[i]);
    f1[i] = mc_ratio(2.0*d, 2.0*d + (colS[i] - d) + (rowS[i] - d));
    if( rowS[i]>0.0 ){ ba += rec[i]; nba++; }
    if( !isnan(f1[i]) ){ mf += f1[i]; nmf++; wf += rowS[i]*f1[i]; }
    vt += rowS[i]*rowS[i];
    vp += colS[i]*colS[i];
    tp += rowS[i]*colS[i];
  }
  cov = tr*n - tp;
  ml_json_init(&js);
  ml_json_begin_object(&js);
  ml_json_key(&js, "k"); ml_json_int(&js, K);
  ml_json_key(&js, "n"); ml_json_double(&js, n*unscale);
  ml_json_key(&js, "matrix");
  ml_json_begin_array(&js);
  for(i=0; i<K; i++) ml_mc_json_array(&js, C + (size_t)i*K, K, unscale);
  ml_json_end_array(&js);
  ml_json_key(&js, "accuracy");          ml_json_double(&js, tr / n);
  ml_json_key(&js, "balanced_accuracy"); ml_json_double(&js, nba ? ba / nba : NAN);
  ml_json_key(&js, "precision");         ml_mc_json_array(&js, prec, K, 1.0);
  ml_json_key(&js, "recall");            ml_mc_json_array(&js, rec, K, 1.0);
  ml_json_key(&js, "f1");                ml_mc_json_array(&js, f1, K, 1.0);
  ml_json_key(&js, "support");           ml_mc_json_array(&js, rowS, K, unscale);
  ml_json_key(&js, "macro_f1");          ml_json_double(&js, nmf ? mf / nmf : NAN);
  ml_json_key(&js, "weighted_f1");       ml_json_double(&js, wf / n);
  ml_json_key(&js, "micro_f1");          ml_json_double(&js, tr / n);
  ml_json_key(&js, "kappa");             ml_json_double(&js, mc_kappa(C, rowS, colS, n, K, 0));
  ml_json_key(&js, "kappa_linear");      ml_json_double(&js, mc_kappa(C, rowS, colS, n, K, 1));
  ml_json_key(&js, "kappa_quadratic");   ml_json_double(&js, mc_kappa(C, rowS, colS, n, K, 2));
  ml_json_key(&js, "mcc");
  ml_json_double(&js, (n*n - vp)*(n*n - vt)>0.0 ? cov / sqrt((n*n - vp)*(n*n - vt)) : NAN);
  ml_json_end_object(&js);
  ml_result_json(ctx, &js);
}

/* --------------------------------------------------- streaming results */

/* mc_top_k: top-m accuracy for m = 1..k-1 from the sums (exact, so the
** order in which rows came and left does not matter). */
static void mc_top_k_json(sqlite3_context *ctx, const McAgg *p){
  const McStream *ss = p->ss;
  MlXsum *x = 0;
  MlJson js;
  int k = p->k, m, a, t;
  if( !p->wmode ){
    if( (x = mc_xsums(k))==0 ){ sqlite3_result_error_nomem(ctx); return; }
    for(a=0; a<k; a++){
      for(t=1; t<=k; t++){
        ml_i64 c = ss->cnt[a*MC_MAX_K + t-1];
        if( c==0 ) continue;
        ml_xsum_add_n(&x[0], 1.0, c, 1);
        for(m=a+1; m<k; m++) ml_xsum_add_n(&x[m], mc_hit(m, a, t), c, 1);
      }
    }
  }
  ml_json_init(&js);
  ml_json_begin_array(&js);
  for(m=1; m<k; m++){
    const MlXsum *h = x ? &x[m] : &ss->x[0][m], *all = x ? &x[0] : ss->x[0];
    ml_json_double(&js, ml_xsum_round(h) / ml_xsum_round(all));
  }
  ml_json_end_array(&js);
  ml_free(x);
  ml_result_json(ctx, &js);
}

/* mc_calibration: the binary ece over each column's bins, in ascending
** order of the bins (rule 7: ece = sum_b |W y_b - W p_b| / W). */
static void mc_calib_json(sqlite3_context *ctx, const McAgg *p){
  const McStream *ss = p->ss;
  double per[MC_MAX_K], top = 0.0, mce = 0.0, sum = 0.0;
  MlJson js;
  ml_i64 b;
  int c;
  for(c=0; c<=p->k; c++){
    double ece = 0.0, W = 0.0;
    for(b=0; b<ss->B; b++){
      const McBin *q = &ss->bin[c*ss->B + b];
      double wb, wy, wp;
      if( q->n==0 ) continue;
      if( p->wmode ){
        wb = ml_xsum_round(&q->x[0]); wy = ml_xsum_round(&q->x[1]); wp = ml_xsum_round(&q->x[2]);
      }else{
        wb = (double)q->n; wy = (double)q->npos; wp = ml_xsum_round(&q->x[0]);
      }
      ece += fabs(wy - wp);
      if( c==p->k && fabs(wy/wb - wp/wb)>mce ) mce = fabs(wy/wb - wp/wb);
      W += wb;
    }
    if( c<p->k ){ per[c] = ece / W; sum += per[c]; }
    else top = ece / W;
  }
  ml_json_init(&js);
  ml_json_begin_object(&js);
  ml_json_key(&js, "k");             ml_json_int(&js, p->k);
  ml_json_key(&js, "bins");          ml_json_int(&js, ss->B);
  ml_json_key(&js, "top_label_ece"); ml_json_double(&js, top);
  ml_json_key(&js, "classwise_ece"); ml_json_double(&js, sum / p->k);
  ml_json_key(&js, "per_class_ece"); ml_mc_json_array(&js, per, p->k, 1.0);
  ml_json_key(&js, "mce");           ml_json_double(&js, mce);
  ml_json_end_object(&js);
  ml_result_json(ctx, &js);
}

/* The result of a streaming kind from its sums. */
void ml_mc_stream_result(sqlite3_context *ctx, const McAgg *p, int kind){
  const McStream *ss = p->ss;
  if( kind==MC_LOG_LOSS || kind==MC_BRIER || kind==MC_RPS ){
    sqlite3_result_double(ctx, ml_xsum_round(&ss->sum[0]) / (p->wmode ? ml_xsum_round(&ss->sum[1]) : (double)p->n));
  }else if( kind==MC_TOP_K ){
    mc_top_k_json(ctx, p);
  }else if( kind==MC_CALIB ){
    mc_calib_json(ctx, p);
  }else{
    /* the matrix: K the scores' k, or for pred rows one more than the
    ** largest class held (at least 2); cells the counts, or the exact sums
    ** of w 2^-e0, reported times 2^e0 (rule 15) */
    double C[MC_MAX_K*MC_MAX_K];
    int K = p->k, i, j;
    if( K==1 ){
      K = 2;
      for(i=0; i<MC_MAX_K; i++){
        for(j=0; j<MC_MAX_K; j++){
          if( ss->cnt[i*MC_MAX_K + j]==0 ) continue;
          if( i + 1>K ) K = i + 1;
          if( j + 1>K ) K = j + 1;
        }
      }
    }
    for(i=0; i<K; i++){
      for(j=0; j<K; j++){
        int cell = i*MC_MAX_K + j;
        C[i*K + j] = !p->wmode ? (double)ss->cnt[cell] : ss->x && ss->x[cell] ? ml_xsum_round(ss->x[cell]) : 0.0;
      }
    }
    mc_confusion_json(ctx, C, K, ldexp(1.0, p->e0));
  }
}
