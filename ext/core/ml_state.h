/*
** SPDX-License-Identifier: MIT
**
** ml_state.h -- partial states: the compact, mergeable BLOB that holds what
** every sorted metric needs from a set of rows (SPEC "Partial states").
**
** A state is one or more sections; a section is a sorted run of distinct
** entries (score [, stratifier]) with their count of negatives and
** positives.  The format (version 1, all integers little-endian):
**
**   header   "MLST" | version u8 | kind u8 | m u8 | nsec u8
**            kind 1 binary (1 section), 2 binary + stratifier (1 section),
**            3 ordinal with m cuts (m + 1 sections: y >= 1 .. y >= m, then
**            the severity run: rows with y >= 1, positive when y == m),
**            all version 1; kind 4 weighted (1 section, version 2: a
**            version-1 reader refuses it as newer): laid out as kind 2
**            with each row's weight in the stratifier's place, so an entry
**            is (score, weight) with its counts of negatives and positives
**            -- merging adds counts and never rounds a weight; every weight
**            is finite and > 0.  A binary section read as weighted weighs 1.
**            kind 5 multiclass and 6 multiclass weighted (version 3: older
**            readers refuse them as newer), m = k classes (2..16), k
**            sections, section c the rows of class c: distinct tuples
**            (p_0, ..., p_k-1 [, w]) ascending, each with its count
**            (ml_state_mc, see "Multiclass entries" below).
**   section  codec_s u8 | codec_z u8 | 0 u16 | entries u64 | neg u64 |
**            pos u64 | payload bytes u64 | payload
**   trailer  CRC-32C (Castagnoli) u32 of every byte before it
**
** A codec says how a column's values are written: 0 raw (the 64-bit
** order-preserving key of the double), 1 + d (the double is exactly the
** integer i divided by 10^d, d in 0..ML_STATE_MAX_SCALE, |i| <= 2^52: rounded
** probabilities), and for codec_z of a section without stratifier 255.
** An entry is: LEB128 varint of the score's delta from the previous entry
** (the first from 0; values as unsigned order-preserving integers), for
** stratified states the zig-zag varint of the stratifier's signed delta,
** then varint neg, varint pos.  Entries ascend strictly by (score, strat),
** neg + pos >= 1, and they sum to the section's totals.
**
** Multiclass entries (kinds 5, 6): a section's neg is 0 and pos its rows;
** codec_s applies to all k columns, codec_z is the weight's (255 in kind
** 5).  An entry is: the varint delta of p_0 from the previous entry's, the
** zig-zag varint of each other column's (and the weight's) signed delta
** from the previous entry's same column, then the varint count (>= 1).
** Tuples ascend strictly, as decoded: (p_0, ..., p_k-1, w) compared
** column by column (-0.0 folded to 0.0, every value finite, weights > 0);
** the counts sum to pos; the sections' rows together are at most 2^53.
** A multiclass weighted state keeps each row's weight itself (rows with
** the same scores and weight add counts), so the rows come back exactly.
** Cost (bytes per distinct row, tests/test_mc_state.py): 4.1 at k = 3
** and 7.2 at k = 5 for probabilities of 2 decimals (one more weighted
** with a few distinct weights), 23 at k = 3 for full doubles; at most
** 2 k + 1 and 9 k + 10 (asserted).
**
** Cost: a float score takes ~5-8 bytes, a rounded one ~1 byte plus its
** counts; see docs/states.md for measured sizes.
*/
#ifndef ML_STATE_H
#define ML_STATE_H

#include "ml_core.h"

#define ML_STATE_VERSION    1
#define ML_STATE_VERSION_W  2            /* the weighted kind's */
#define ML_STATE_VERSION_MC 3            /* the multiclass kinds' */
#define ML_STATE_BINARY     1
#define ML_STATE_STRAT      2
#define ML_STATE_ORDINAL    3
#define ML_STATE_WEIGHTED   4
#define ML_STATE_MC         5
#define ML_STATE_MC_W       6
#define ML_STATE_MAX_K      16           /* classes of a multiclass state */
#define ML_STATE_IS_MC(kind) ((kind)==ML_STATE_MC || (kind)==ML_STATE_MC_W)
/* The survival kinds (version 4, ml_state_surv.c): laid out as the
** multiclass kinds with k = 2 -- section c the rows of event c, columns
** (time, risk) [, weight] -- and merging only with each other. */
#define ML_STATE_VERSION_SURV 4
#define ML_STATE_SURV       7
#define ML_STATE_SURV_W     8
#define ML_STATE_IS_SURV(kind) ((kind)==ML_STATE_SURV || (kind)==ML_STATE_SURV_W)
/* The kinds of tuples with counts (multiclass, survival), and their weighted ones. */
/* The distribution kinds (version 5, ml_state_dist(x), ml_state_dist_w(x,
** w)): the rows of one column, labelled or not.  Laid out as the binary
** (kind 9) and the weighted (kind 10) kinds, every row counted as a
** negative (pos 0 in every entry and section), so that the binary codec,
** check and merges serve them; they merge only with each other (kind 9
** with 10: the result weighted, as binary with weighted).  Older readers
** refuse version 5 as newer.  Read by the two-state drift forms only. */
#define ML_STATE_VERSION_DIST 5          /* the newest read */
#define ML_STATE_DIST       9
#define ML_STATE_DIST_W     10
#define ML_STATE_IS_DIST(kind) ((kind)==ML_STATE_DIST || (kind)==ML_STATE_DIST_W)
/* The kinds laid out as the weighted kind: entries (score, weight). */
#define ML_STATE_IS_WLAYOUT(kind) ((kind)==ML_STATE_WEIGHTED || (kind)==ML_STATE_DIST_W)
#define ML_STATE_IS_TUPLE(kind) (ML_STATE_IS_MC(kind) || ML_STATE_IS_SURV(kind))
#define ML_STATE_TUPLE_W(kind) ((kind)==ML_STATE_MC_W || (kind)==ML_STATE_SURV_W)
#define ML_STATE_MAX_CUTS   16
#define ML_STATE_MAX_SEC    (ML_STATE_MAX_CUTS+1)
#define ML_STATE_MAX_SCALE  12
#define ML_STATE_MAX_ROWS   (((ml_i64)1)<<53)    /* rows of one section, at most */
#define ML_STATE_HDR        8
#define ML_STATE_SECHDR     36
#define ML_CODEC_NONE       255

/* Error codes of parsing and merging (ML_OK, ML_NOMEM from ml_core.h). */
#define ML_STATE_BAD        2    /* the message says what */

/* One entry of a section: score key, stratifier key (the double's bits
** mapped to an order-preserving integer, -0.0 kept apart), class counts. */
typedef struct MlEntry { ml_key key; ml_key zkey; ml_i64 n[2]; } MlEntry;

/* A parsed section: totals and where its payload lies. */
typedef struct MlSection {
  int codec[2];                 /* score, strat: 0 raw, 1+d scaled, 255 none */
  ml_i64 nEntry, n[2];
  const unsigned char *p;       /* payload */
  uint64_t nByte;
  /* Found while validating a scaled binary section (0 / unset otherwise):
  ** its last written integer, so that a merge need not walk it for its
  ** range (MlStateAcc keeps it beside its copy of the blob). */
  int hasLast;
  uint64_t uLast;
} MlSection;

typedef struct MlState {
  int kind, m, nSec;
  MlSection sec[ML_STATE_MAX_SEC];
} MlState;

/* Parses and fully validates a blob (magic, version, length, checksum, every
** entry); on failure writes what is wrong to zErr ("the blob is not an
** mleval state", "truncated", ...) and returns ML_STATE_BAD. */
int ml_state_parse(const void *blob, uint64_t n, MlState *st, char *zErr, int nErr);
/* "binary", "binary+strat" or "ordinal (m = 2)". */
const char *ml_state_kind_name(const MlState *st, char *buf, int nBuf);

/* The state kinds, one row each: the one list from which every reader's
** refusal ("st must be a state made by ml_state(y, s) or ..., got a
** multiclass (k = 3) state"), mleval_functions()' "forms" and
** mleval_build_info()'s "state_kinds" are derived, so that a new kind is
** refused by name everywhere it is not read.  ml_state_kinds ends with a
** row whose kind is 0. */
typedef struct MlStateKind {
  int kind;                 /* ML_STATE_* */
  const char *name;         /* "binary", "multiclass weighted", ... */
  const char *maker;        /* the call that makes it: "ml_state(y, s)" */
} MlStateKind;
extern const MlStateKind ml_state_kinds[];
/* A mask that reads every kind in the list (ml_merge). */
#define ML_STATE_ANY 0xFFFFFFFEu
/* The row of a kind, or 0 for a kind this build does not know. */
const MlStateKind *ml_state_kind_info(int kind);

/* Forward reader over a validated section. */
typedef struct MlReader {
  const MlSection *sec;
  const unsigned char *p;
  ml_i64 left;
  uint64_t prev[2];
  ml_key zNone;                 /* the zkey of a section without one (0; a
                                ** binary section merged as weighted: 1.0's) */
} MlReader;
void ml_reader_init(MlReader *r, const MlSection *sec);
int ml_reader_next(MlReader *r, MlEntry *e);            /* 1: an entry; 0: the end */

/* The double a stratifier key stands for. */
ml_key ml_zkey_of(double d);
double ml_double_of_zkey(ml_key k);

/* A growing byte buffer. */
typedef struct MlBuf { unsigned char *z; uint64_t n, cap; int oom; } MlBuf;
void ml_buf_free(MlBuf *b);

/* Encodes sorted samples as a state: kind binary (width 8) or strat (width
** 16, aux = stratifier); the buffer is sorted here (ties by stratifier).
** Ordinal: nSmp = m + 1 buffers of width 8.  ML_OK / ML_NOMEM. */
int ml_state_encode(MlSamples *const *smp, int nSmp, int kind, MlBuf *out);
/* The lowest and highest score of a non-empty section. */
void ml_section_range(const MlSection *sec, double *lo, double *hi);

/* Merges two parsed states of the same kind into out (sign -1: removes b's
** rows from a; every row of b must be in a).  ML_OK, ML_NOMEM, or
** ML_STATE_BAD with zErr (different kinds, counts overflow, b not in a). */
int ml_state_merge(const MlState *a, const MlState *b, int sign, MlBuf *out, char *zErr, int nErr);

/* Parses a state this module wrote (headers only: no checksum, no entry
** walk). */
void ml_state_parse_own(const void *blob, uint64_t n, MlState *st);

/* Collects the states of a group (copies, at most the states' own size)
** and merges them all at once: a k-way merge of sorted runs, O(total log k),
** repeated scores adding their counts.  Zero-initialise. */
typedef struct MlStateAcc {
  int n, cap;
  struct MlAccItem {
    unsigned char *z; uint64_t n;
    uint32_t lastMask;                    /* sections whose aLast is known */
    uint64_t aLast[ML_STATE_MAX_SEC];     /* MlSection.uLast of each */
  } *a;
  int kind, m;                  /* of the first state */
} MlStateAcc;
/* Adds one validated state (copied).  ML_OK / ML_NOMEM / ML_STATE_BAD
** (a state of another kind than the first). */
int ml_acc_add(MlStateAcc *acc, const void *blob, uint64_t n, const MlState *st, char *zErr, int nErr);
/* Parses the held states into a new array of acc->n (caller frees). */
int ml_acc_states(const MlStateAcc *acc, MlState **pSt);
/* Removes one validated state's rows (window xInverse): collapses, then
** subtracts. */
int ml_acc_remove(MlStateAcc *acc, const MlState *st, char *zErr, int nErr);
/* Merges everything into one state; *pz / *pn point at it (owned by acc),
** NULL / 0 when empty. */
int ml_acc_collapse(MlStateAcc *acc, const unsigned char **pz, uint64_t *pn, char *zErr, int nErr);
void ml_acc_clear(MlStateAcc *acc);

/* Merges k sections' rows into sorted samples in one linear pass over
** them all (sign +1), or removes them (sign -1).  Width 16 takes the
** stratifier as aux.  The buffer is sorted first when it is not.
** ML_OK, ML_NOMEM, ML_ERROR (counts overflow, zErr says so) or ML_STOPPED
** (ml_stop_requested: the buffer is then garbage, clear it). */
int ml_samples_absorb(MlSamples *s, const MlSection *const *secs, int k, int sign, char *zErr, int nErr);
/* The same without expanding (width 8; width 16 goes to ml_samples_absorb):
** the buffer turns into runs form (MlSamples) and the sections' entries
** merge into its runs with their counts, O(runs + entries log k) time and
** 24 bytes per distinct score, whatever the counts; sign -1 subtracts each
** entry's counts from its run.  ML_OK, ML_NOMEM (the buffer may then be in
** runs form with what it held), ML_ERROR (counts overflow, or more distinct
** scores than one allocation holds; zErr says so). */
int ml_samples_absorb_counts(MlSamples *s, const MlSection *const *secs, int k, int sign,
                             char *zErr, int nErr);
/* Sections into a counted buffer (weighted, ml_samples_widen: width 24 key,
** a count held as a double, stratifier; width 16 key and count): each entry adds one
** record per class it has rows of, whose weight is that count -- never a
** record per row, so O(entries) time and 24 bytes an entry.  The weighted
** folds then give the rows' results exactly (integer weights below 2^53
** are rows repeated, docs/weights.md).  sign -1 removes the records such an
** add made (one sorted pass per section).  held[y]: the class-y rows the
** buffer stands for, checked against 2^53 and updated.  ML_OK, ML_NOMEM,
** ML_ERROR (counts overflow, zErr says so). */
int ml_samples_absorb_counted(MlSamples *s, ml_i64 held[2], const MlSection *const *secs, int k, int sign,
                              char *zErr, int nErr);
/* held[y] += the class-y rows of k sections, checked: ML_OK, or ML_STATE_BAD
** ("counts overflow: ...", ml_merge's text) when a class or both together
** would pass 2^53 rows (held unchanged then).  Every count sum of the
** state code goes through it. */
int ml_state_add_counts(ml_i64 held[2], const MlSection *const *secs, int k, char *zErr, int nErr);

/* A weighted state's section (weighted 1; else a binary or stratified
** one, whose rows weigh 1 -- a stratifier is not a weight) into a
** weighted width-16 buffer (MlSamples.weighted): each entry's class-y rows
** become records (score, c w) -- the product split exactly into two
** doubles when it rounds (fma), the second then a record of its own -- so
** every weighted fold, which sums a tie group's weights exactly, gives the
** rows' results bit for bit, in O(entries).  sign -1 removes exactly the
** records such an add made (one sorted pass).  held[y] counts rows, checked
** against 2^53.  ML_OK, ML_NOMEM, ML_ERROR (zErr: counts overflow, too many
** entries, or rows removed that were not added). */
int ml_samples_absorb_weighted(MlSamples *s, ml_i64 held[2], const MlSection *sec, int weighted, int sign,
                               char *zErr, int nErr);
/* c rows weighing w each as one or two doubles whose exact sum is c w:
** part[0] = c w rounded, part[1] the rounding error (fma), present when
** not 0.  Returns how many (1 or 2).  The records a count becomes where a
** fold sums a tie group's weights exactly (ml_samples_absorb_weighted, the
** monitoring family's states). */
int ml_count_weight(ml_i64 c, double w, double part[2]);
/* True when a state of kind b may join states of kind a in one group or
** merge: the same kind, or binary with weighted (the result weighted). */
int ml_state_kinds_join(int a, int b);

/* Multiclass states (kinds 5, 6).  An entry: the k score keys
** (ml_key_of), the weight's key (ml_key_of; 0 when unweighted) and the
** count of rows. */
typedef struct MlMcEntry { ml_key p[ML_STATE_MAX_K]; ml_key w; ml_i64 n; } MlMcEntry;
typedef struct MlMcReader {
  const MlSection *sec;
  const unsigned char *p, *end;
  ml_i64 left;
  int k, weighted;              /* weighted: an unweighted section's rows weigh 1 */
  uint64_t prev[ML_STATE_MAX_K+1];
} MlMcReader;
/* A validated multiclass section of k columns; weighted 1 reads a weight
** (1.0 for a kind-5 section). */
void ml_mc_reader_init(MlMcReader *r, const MlSection *sec, int k, int weighted);
/* 1: an entry; 0: the end; -1: a bad entry (only in unvalidated bytes). */
int ml_mc_reader_next(MlMcReader *r, MlMcEntry *e);
/* The rows rows[0 .. n) (each [y, w, p_0 .. p_k-1], y in 0..k-1, p finite,
** w > 0; w ignored unless weighted) as a multiclass state of kind 5 or 6:
** sorted and counted here.  ML_OK / ML_NOMEM. */
int ml_state_encode_mc(const double *rows, ml_i64 n, int k, int weighted, MlBuf *out);
/* The same for a kind of tuples (ML_STATE_IS_TUPLE): the survival kinds
** are k = 2, y the event, (p_0, p_1) = (time, risk). */
int ml_state_encode_tuples(const double *rows, ml_i64 n, int k, int kind, MlBuf *out);
/* ml_state_surv.c: a survival section's times are >= 0 (after the
** multiclass checks): ML_OK or ML_STATE_BAD with zErr. */
int ml_surv_verify_section(const MlSection *s, int weighted, char *zErr, int nErr, int iSec);

/* n validated states of one kind (binary with weighted, or multiclass of
** one k) merged into one, as ml_acc_collapse does.  ML_OK, ML_NOMEM,
** ML_STATE_BAD (zErr). */
int ml_state_kmerge(const MlState *st, int n, MlBuf *out, char *zErr, int nErr);

/* ml_state_absorb.c: what the families' xAbsorb calls. */
/* Absorbs section iSec of n states into smp (sign +1) or removes it (-1);
** any failure clears smp.  ML_OK, ML_NOMEM, ML_ERROR (counts overflow,
** zErr) or ML_STOPPED. */
int ml_absorb_section(MlSamples *smp, const MlState *st, int n, int iSec, int sign, char *zErr, int nErr);
/* The same without expanding a state into rows: smp (width 8) turns into
** counted runs (ml_samples_absorb_counts), O(entries) whatever the counts.
** For the functions whose folds all read runs (the ranking family). */
int ml_absorb_section_counts(MlSamples *smp, const MlState *st, int n, int iSec, int sign,
                             char *zErr, int nErr);
/* The same for a family whose weighted twins' folds give the rows' bits
** with integer weights (stratified, sorting calibration): smp takes each
** entry as one record weighing its count (ml_samples_absorb_counted),
** held[2] the rows it stands for.  At the first state (*counted 0) smp is
** widened to weighted records (ml_samples_widen: its rows weigh 1) and
** *counted set; rows added later are records of weight 1. */
int ml_absorb_section_counted(MlSamples *smp, int *counted, ml_i64 held[2], const MlState *st, int n,
                              int iSec, int sign, char *zErr, int nErr);
/* Its first step alone: at the first state (*counted 0) smp is widened to
** weighted records whose rows weigh 1, held set to them and *counted set;
** afterwards nothing.  ML_OK or ML_NOMEM. */
int ml_samples_counted_begin(MlSamples *smp, int *counted, ml_i64 held[2]);
/* True when one of the n states is weighted (ml_state_w). */
int ml_states_weighted(const MlState *st, int n);
/* The n states' rows into a weighted width-16 buffer (ml_samples_weigh
** first): each entry's c rows of class y as records weighing c w (binary
** and stratified states weigh 1), each state's own, which sign -1
** removes; held[y] += the rows.  Any failure clears smp.  ML_OK,
** ML_NOMEM or ML_ERROR (zErr). */
int ml_absorb_weighted(MlSamples *smp, ml_i64 held[2], const MlState *st, int n, int sign, char *zErr, int nErr);
/* held[y] += the class-y rows of section iSec of n states, checked against
** 2^53 (ml_state_add_counts): ML_OK, ML_NOMEM, or ML_ERROR with zErr. */
int ml_state_rows(const MlState *st, int n, int iSec, ml_i64 held[2], char *zErr, int nErr);
/* CRC-32C of n bytes (exposed for the tests and the fuzz target). */
uint32_t ml_crc32c(const void *p, uint64_t n);

#endif /* ML_STATE_H */
