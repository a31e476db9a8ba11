-- Per-fold operating points on the demo data.
--   sqlite3 -cmd '.load ext/.libs/mleval' :memory: < sql/operating_points.sql
.read sql/demo_data.sql
.mode box
.print Which threshold gives 95 % specificity?  One row per fold (positive when s >= threshold)
SELECT fold,
       round(op ->> '$.threshold', 4)   AS threshold,
       round(op ->> '$.tpr', 4)         AS sensitivity,
       round(op ->> '$.specificity', 4) AS specificity,
       round(op ->> '$.precision', 4)   AS precision,
       op ->> '$.tp' AS tp, op ->> '$.fp' AS fp, op ->> '$.tn' AS tn, op ->> '$.fn' AS fn
FROM (SELECT fold, operating_point(y, s, 'specificity', 0.95) AS op FROM preds GROUP BY fold)
ORDER BY fold;

.print
.print The same sensitivity from the scalar shortcut, and other criteria per fold
SELECT fold,
       round(sens_at_spec(y, s, 0.95), 4)                                   AS sens_at_95spec,
       round(operating_point(y, s, 'fpr', 0.05) ->> '$.tpr', 4)            AS tpr_at_5fpr,
       round(operating_point(y, s, 'sensitivity', 0.9) ->> '$.threshold', 4) AS thr_90sens,
       round(operating_point(y, s, 'max_f1') ->> '$.threshold', 4)         AS thr_max_f1,
       round(operating_point(y, s, 'max_f1') ->> '$.f1', 4)                AS max_f1,
       round(operating_point(y, s, 'youden') ->> '$.youden_j', 4)          AS youden_j
FROM preds GROUP BY fold ORDER BY fold;

.print
.print Precision at s >= 0.0 projected to a deployment prevalence of 1 %, and the partial AUROC up to FPR 0.1
SELECT fold,
       round(pp ->> '$.eval_prior', 4)                 AS eval_prior,
       round(pp ->> '$.precision_at_eval_prior', 4)    AS precision_here,
       round(pp ->> '$.precision_at_assumed_prior', 4) AS precision_at_1pct,
       round(pauc, 4)                                  AS partial_auroc_10
FROM (SELECT fold, precision_at_prior(y, s, 0.0, 0.01) AS pp, partial_auroc(y, s, 0.1) AS pauc
      FROM preds GROUP BY fold)
ORDER BY fold;
