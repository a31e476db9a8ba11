-- SPDX-License-Identifier: MIT
-- Per-fold operating points at 95 % specificity on the demo data.
--   sqlite3 -cmd '.load ext/.libs/mleval' :memory: < sql/operating_points.sql
.read sql/demo_data.sql
.mode box
.print Operating points per fold (positive when s >= threshold)
SELECT fold,
       round(sens_at_spec(y, s, 0.95), 4) AS sens_at_95spec,
       round(tpr_at_fpr(y, s, 0.05), 4)   AS tpr_at_5fpr,
       round(youden_j(y, s), 4)           AS youden_j,
       round(confusion(y, s, 0.0) ->> '$.sensitivity', 4) AS sens_at_s0,
       round(confusion(y, s, 0.0) ->> '$.specificity', 4) AS spec_at_s0
FROM preds GROUP BY fold ORDER BY fold;

.print
.print The score threshold that reaches 95 % specificity, per fold, from the ROC curve
SELECT fold, min(value ->> 'threshold') AS threshold,
       round(max(value ->> 'tpr'), 4) AS sensitivity,
       round(1 - max(value ->> 'fpr'), 4) AS specificity
FROM (SELECT fold, roc_curve(y, s) AS c FROM preds GROUP BY fold), json_each(c)
WHERE value ->> 'fpr' <= 0.05 AND value ->> 'threshold' IS NOT NULL
GROUP BY fold ORDER BY fold;
