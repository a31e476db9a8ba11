/*
** SPDX-License-Identifier: MIT
**
** ml_state_surv.c -- the survival kinds of partial state (7 survival, 8
** survival weighted; ml_state.h): what ml_state_surv(time, event, risk)
** and ml_state_surv_w(time, event, risk, w) return, and what every
** function of the survival family takes in place of its data arguments.
**
** Rules:
**   1. The layout is the multiclass kinds' with k = 2 (ml_state_mc.c
**      writes, reads, checks and merges it): section c holds the rows of
**      event c as distinct tuples (time, risk) -- (time, risk, w) weighted
**      -- ascending, each with its count; format version 4, so a reader
**      of version 3 refuses it as newer.
**   2. Beyond the multiclass checks, every time is >= 0 (a negative time
**      is an error in the rows too).
**   3. Survival states merge only with survival states (ml_merge, a
**      group's states); weighted with unweighted gives a weighted state
**      (the unweighted rows weighing 1).
**
** Cost: validation O(entries); the rest is ml_state_mc.c's.
*/
#include <stdio.h>
#include "ml_state.h"

int ml_surv_verify_section(const MlSection *s, int weighted, char *zErr, int nErr, int iSec){
  MlMcReader r;
  MlMcEntry e;
  int rc;
  ml_mc_reader_init(&r, s, 2, weighted);
  while( (rc = ml_mc_reader_next(&r, &e))==1 ){
    double t = ml_double_of(e.p[0]);
    if( !(t>=0.0) ){
      snprintf(zErr, (size_t)nErr, "the state is inconsistent: section %d holds a negative time (%.17g)", iSec+1, t);
      return ML_STATE_BAD;
    }
  }
  return ML_OK;
}
