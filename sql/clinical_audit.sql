-- SPDX-License-Identifier: MIT
-- A clinical audit of the demo predictions: is the probability p calibrated,
-- what does the model do at a treatment threshold, is it worth using at all
-- (decision curve), and what does a screening budget buy.  Per fold (the five
-- cross-validation folds of sql/demo_data.sql) and overall.
--   sqlite3 -cmd '.load ext/.libs/mleval' :memory: < sql/clinical_audit.sql
-- Functions: docs/validation.md (calibration_summary), docs/clinical.md (the
-- rest).  Each section also recomputes a number from its definition in plain
-- SQL ("by hand"); make check (tests/sql_scripts.sh) compares this script's
-- whole output with sql/clinical_audit.expected.
.read sql/demo_data.sql
.mode box

-- One row per fold and one for all rows ('all'), every section uses it.
CREATE TEMP VIEW folds AS
  SELECT CAST(fold AS TEXT) AS fold, y, s, p FROM preds
  UNION ALL
  SELECT 'all', y, s, p FROM preds;

.print 1. Calibration: calibration_summary(y, p) per fold
CREATE TEMP TABLE cal AS
  SELECT fold, count(*) AS n, sum(y) AS events, sum(p) AS sum_p,
         avg((p - y) * (p - y)) AS brier_by_hand, avg(y) AS prevalence,
         calibration_summary(y, p) AS c
  FROM folds GROUP BY fold;
SELECT fold, c ->> '$.n' AS n, c ->> '$.events' AS events, round(c ->> '$.expected', 1) AS expected,
       round(c ->> '$.oe_ratio', 3) AS "O/E", round(events / sum_p, 3) AS "O/E by hand",
       round(c ->> '$.citl', 3) AS citl, round(c ->> '$.intercept', 3) AS intercept,
       round(c ->> '$.slope', 3) AS slope,
       round(c ->> '$.spiegelhalter_z', 2) AS spiegel_z, printf('%.1e', c ->> '$.spiegelhalter_p') AS spiegel_p,
       round(c ->> '$.brier', 4) AS brier, round(c ->> '$.scaled_brier', 3) AS scaled_brier
FROM cal ORDER BY fold = 'all', fold;
.print How to read it:
.print - O/E = events / sum(p): below 1 the model promises more events than happen (over-prediction).
.print - citl (calibration-in-the-large) is the shift a on the logit scale that makes the mean right,
.print "  logit P(y = 1) = a + logit(p): negative means the probabilities are too high on average."
.print - slope b of logit P(y = 1) = a + b logit(p): 1 is ideal; above 1 the predictions are too timid
.print "  (too close to the mean), below 1 too extreme (the usual sign of an over-fitted model)."
.print - Spiegelhalter's z tests calibration row by row: |z| > 1.96 rejects it at the 5 % level.
.print - scaled Brier = 1 - brier / (prevalence (1 - prevalence)): the share of the prevalence-only
.print "  model's Brier score that the model removes (0 = no better than the prevalence, 1 = perfect)."
.print
.print The same numbers from their definitions in plain SQL (1 = they agree to 1e-12 relative;
.print "SQLite's sum() is not exact, calibration_summary's sums are, so the last digits may differ)"
SELECT fold, abs(events / sum_p / (c ->> '$.oe_ratio') - 1) < 1e-12 AS "O/E = sum(y)/sum(p)",
       abs(brier_by_hand / (c ->> '$.brier') - 1) < 1e-12 AS "brier = avg((p-y)^2)",
       abs((1 - brier_by_hand / (prevalence * (1 - prevalence))) / (c ->> '$.scaled_brier') - 1) < 1e-12
         AS "scaled = 1 - brier/(ybar(1-ybar))",
       round(prevalence - sum_p / n, 4) AS "mean(y) - mean(p)"
FROM cal ORDER BY fold = 'all', fold;
.print "mean(y) - mean(p) is what some tools call calibration-in-the-large: on average p is 6 to 7 points too high."

.print
.print 2. At a treatment threshold of 20 % risk: confusion_ci(y, p, 0.2), Wilson 95 % intervals
CREATE TEMP TABLE ci AS
  SELECT fold, confusion_ci(y, p, 0.2) AS c,
         sum(y = 1 AND p >= 0.2) AS tp_by_hand, sum(y = 0 AND p >= 0.2) AS fp_by_hand
  FROM folds GROUP BY fold;
SELECT fold, c ->> '$.tp' AS tp, c ->> '$.fp' AS fp, c ->> '$.tn' AS tn, c ->> '$.fn' AS fn,
       c ->> '$.tp' = tp_by_hand AND c ->> '$.fp' = fp_by_hand AS counts_by_hand,
       printf('%.3f [%.3f, %.3f]', c ->> '$.sensitivity.estimate', c ->> '$.sensitivity.lo', c ->> '$.sensitivity.hi') AS sensitivity,
       printf('%.3f [%.3f, %.3f]', c ->> '$.specificity.estimate', c ->> '$.specificity.lo', c ->> '$.specificity.hi') AS specificity,
       printf('%.3f [%.3f, %.3f]', c ->> '$.ppv.estimate', c ->> '$.ppv.lo', c ->> '$.ppv.hi') AS ppv,
       printf('%.3f [%.3f, %.3f]', c ->> '$.npv.estimate', c ->> '$.npv.lo', c ->> '$.npv.hi') AS npv
FROM ci ORDER BY fold = 'all', fold;
.mode list
SELECT printf('Treating p >= 0.2 (all rows): %d of %d patients treated (%.1f %%), %.1f %% of the %d events found,',
              tp + fp, n, 100.0 * (tp + fp) / n, 100.0 * tp / (tp + fn), tp + fn)
       || char(10) ||
       printf('%.1f %% of those treated are events (PPV), and %.1f %% of those left untreated are event-free (NPV).',
              100.0 * tp / (tp + fp), 100.0 * tn / (tn + fn))
FROM (SELECT c ->> '$.tp' AS tp, c ->> '$.fp' AS fp, c ->> '$.tn' AS tn, c ->> '$.fn' AS fn,
             (c ->> '$.tp') + (c ->> '$.fp') + (c ->> '$.tn') + (c ->> '$.fn') AS n FROM ci WHERE fold = 'all');
.mode box
.print Do the five folds agree? Their intervals overlap when the largest lower bound is below the smallest upper one
SELECT key AS ratio, printf('%.3f', max(value ->> 'lo')) AS largest_lo, printf('%.3f', min(value ->> 'hi')) AS smallest_hi,
       CASE WHEN max(value ->> 'lo') < min(value ->> 'hi') THEN 'yes' ELSE 'no' END AS all_overlap
FROM ci, json_each(ci.c) WHERE fold <> 'all' AND key IN ('sensitivity', 'specificity', 'ppv', 'npv')
GROUP BY key ORDER BY instr('sensitivity specificity ppv npv', key);

.print
.print 3. Net benefit at a few thresholds, all rows: net_benefit(y, p, pt) and TP/n - FP/n pt/(1 - pt)
SELECT pt, round(net_benefit(y, p, pt), 4) AS net_benefit,
       round((sum(y = 1 AND p >= pt) - sum(y = 0 AND p >= pt) * pt / (1 - pt)) / count(*), 4) AS by_hand,
       round(avg(y) - (1 - avg(y)) * pt / (1 - pt), 4) AS treat_all
FROM preds, (SELECT 0.05 AS pt UNION ALL SELECT 0.1 UNION ALL SELECT 0.2 UNION ALL SELECT 0.3)
GROUP BY pt ORDER BY pt;

.print
.print 4. Decision curve, all rows: decision_curve(y, p, 0.05, 0.5, 0.05) unpacked with json_each
CREATE TEMP TABLE dca AS
  SELECT fold, round(value ->> 'threshold', 2) AS pt, value ->> 'net_benefit' AS nb,
         value ->> 'treat_all' AS treat_all, value ->> 'treat_none' AS treat_none
  FROM (SELECT fold, decision_curve(y, p, 0.05, 0.5, 0.05) AS d FROM folds GROUP BY fold), json_each(d);
SELECT pt AS threshold, round(nb, 4) AS model, round(treat_all, 4) AS treat_all, treat_none,
       CASE WHEN nb > max(treat_all, treat_none) THEN 'model' WHEN treat_all > treat_none THEN 'treat all' ELSE 'treat none' END AS best
FROM dca WHERE fold = 'all' ORDER BY pt;
.print Per fold, over decision_curve(y, p)'s default grid 0.01, 0.02, ..., 0.99: where the model
.print beats both treating all and treating none, and the thresholds where it does not
SELECT fold, count(*) FILTER (WHERE wins) AS "wins of 99", round(min(pt) FILTER (WHERE wins), 2) AS from_pt,
       round(max(pt) FILTER (WHERE wins), 2) AS to_pt, coalesce(group_concat(round(pt, 2), ' ') FILTER (WHERE NOT wins), '-') AS not_at
FROM (SELECT fold, value ->> 'threshold' AS pt,
             value ->> 'net_benefit' > max(value ->> 'treat_all', value ->> 'treat_none') AS wins
      FROM (SELECT fold, decision_curve(y, p) AS d FROM folds GROUP BY fold), json_each(d))
GROUP BY fold ORDER BY fold = 'all', fold;
.print The decision curve says for which threshold probabilities (the harm of an unneeded treatment
.print relative to the benefit of a needed one, as odds pt/(1 - pt)) acting on the model does more good
.print than the two default policies; the gain is in true positives per patient, net of false ones.

.print
.print 5. A screening budget: follow up the 10 % with the highest p (k = n / 10 in each fold)
SELECT fold, k, round(precision_at_k(y, p, k), 3) AS precision_at_k, round(recall_at_k(y, p, k), 3) AS recall_at_k,
       round(avg(y), 3) AS prevalence, round(precision_at_k(y, p, k) / avg(y), 2) AS lift
FROM folds JOIN (SELECT fold, count(*) / 10 AS k FROM folds GROUP BY fold) USING (fold)
GROUP BY fold ORDER BY fold = 'all', fold;
.print Cumulative gains, all rows: gains(y, p) (deciles of p, highest first)
SELECT value ->> 'bin' AS decile, value ->> 'n' AS n, round(value ->> 'positives', 1) AS positives,
       round(value ->> 'cum_positive_rate', 3) AS cum_share_of_events,
       round(value ->> 'lift', 2) AS lift, round(value ->> 'cum_lift', 2) AS cum_lift
FROM json_each((SELECT gains(y, p) FROM preds));

.print
.print 6. The smoothed calibration curve, calibration_smooth(y, p), and the fit's Wald 95 % intervals
.print "   (calibration_summary's citl_lo/hi, slope_lo/hi), per fold"
SELECT fold, round(s ->> '$.ici', 4) AS ici, round(s ->> '$.e50', 4) AS e50, round(s ->> '$.e90', 4) AS e90,
       round(s ->> '$.emax', 4) AS emax,
       printf('%.3f [%.3f, %.3f]', c ->> '$.citl', c ->> '$.citl_lo', c ->> '$.citl_hi') AS citl,
       printf('%.3f [%.3f, %.3f]', c ->> '$.slope', c ->> '$.slope_lo', c ->> '$.slope_hi') AS slope
FROM (SELECT fold, calibration_smooth(y, p) AS s, calibration_summary(y, p) AS c FROM folds GROUP BY fold)
ORDER BY fold = 'all', fold;
.print The curve itself (all rows), at the first of its points at or above each tenth of p:
SELECT printf('%.1f', lo) AS "p from", round(min(x), 3) AS p, round(c, 3) AS curve, round(min(x) - c, 3) AS "p - curve"
FROM (SELECT value ->> '$[0]' AS x, value ->> '$[1]' AS c
      FROM json_each((SELECT calibration_smooth(y, p) ->> '$.curve' FROM preds))),
     (SELECT value / 10.0 AS lo FROM json_each('[0,1,2,3,4,5,6,7,8,9]'))
WHERE x >= lo GROUP BY lo ORDER BY lo;
.print - ici (the integrated calibration index, rms::val.prob's Eavg) is the mean over the patients of
.print "  |curve(p) - p|, the curve being the lowess smooth of y on p (R's lowess, iter = 0); e50 and e90"
.print "  its median and 90th percentile, emax its largest value (val.prob's E90 and Emax)."
.print - an interval for citl or slope that excludes 0 (citl) or 1 (slope) is evidence of miscalibration.

.print
.print "7. Does recalibration pay? Delta net benefit, net_benefit_diff_ci(y, p_recal, p, pt), all rows:"
.print "   p_recal = sigma(intercept + slope logit(p)) with the overall fit of section 1 (an in-sample"
.print "   illustration: the fit is made on the same rows), paired BCa bootstrap, 1000 replicates, seed 0"
CREATE TEMP TABLE recal AS
  SELECT y, p, 1.0 / (1.0 + exp(-((SELECT c ->> '$.intercept' FROM cal WHERE fold = 'all')
                                  + (SELECT c ->> '$.slope' FROM cal WHERE fold = 'all')
                                    * ln(max(p, 1e-15) / (1 - min(p, 1 - 1e-15)))))) AS p_recal
  FROM preds;
SELECT pt, round(d ->> '$.a', 4) AS nb_recal, round(d ->> '$.b', 4) AS nb_p,
       printf('%.4f [%.4f, %.4f]', d ->> '$.diff', d ->> '$.lo', d ->> '$.hi') AS "delta [95 % CI]",
       CASE WHEN d ->> '$.p_value' = 0 THEN printf('< %g', 1.0 / (d ->> '$.reps'))
            ELSE printf('%.2g', d ->> '$.p_value') END AS p_value,
       d ->> '$.diff' = by_hand AS "delta = nb_recal - nb_p"
FROM (SELECT pt, net_benefit_diff_ci(y, p_recal, p, pt) AS d,
             net_benefit(y, p_recal, pt) - net_benefit(y, p, pt) AS by_hand
      FROM recal, (SELECT 0.1 AS pt UNION ALL SELECT 0.2 UNION ALL SELECT 0.3) GROUP BY pt)
ORDER BY pt;
.print "- p_value is the bootstrap's: no replicate of the 1000 crossed 0, so it is below 1/1000 (the JSON"
.print "  holds 0, the share of replicates; mleval-report prints it as here)."
.print Who is treated (p >= pt) under each, and how many of them are events:
SELECT pt, sum(p_recal >= pt) AS treated_recal, sum(p >= pt) AS treated_p,
       sum(y = 1 AND p_recal >= pt) AS events_recal, sum(y = 1 AND p >= pt) AS events_p
FROM recal, (SELECT 0.1 AS pt UNION ALL SELECT 0.2 UNION ALL SELECT 0.3) GROUP BY pt ORDER BY pt;
.print Recalibrating (lowering p by the fit) treats fewer patients at each threshold, and the false
.print positives it drops outweigh the true positives it loses: the net benefit rises by 1 to 2 true
.print positives per 100 patients, and the paired intervals exclude 0 at every threshold shown.

.print
.print "8. The decision curve with each point's interval: decision_curve_ci(y, p, 0.05, 0.5, 0.05), all rows"
.print "   (one bootstrap, 1000 replicates, seed 0; each point is net_benefit_ci(y, p, threshold)'s interval)"
SELECT round(value ->> 'threshold', 2) AS threshold,
       printf('%.4f [%.4f, %.4f]', value ->> 'net_benefit', value ->> 'lo', value ->> 'hi') AS "model [95 % CI]",
       round(value ->> 'treat_all', 4) AS treat_all,
       CASE WHEN value ->> 'lo' > max(value ->> 'treat_all', 0) THEN 'yes' ELSE 'no' END AS "lo above both"
FROM json_each((SELECT decision_curve_ci(y, p, 0.05, 0.5, 0.05) FROM preds), '$.curve');
.mode list
SELECT 'The interval at 0.2 is net_benefit_ci(y, p, 0.2)''s (1 = yes): ' ||
       (json_extract(d, '$.curve[3].lo') = json_extract(n, '$.lo') AND json_extract(d, '$.curve[3].hi') = json_extract(n, '$.hi'))
FROM (SELECT decision_curve_ci(y, p, 0.05, 0.5, 0.05) AS d, net_benefit_ci(y, p, 0.2) AS n FROM preds);
.mode box
