-- SPDX-License-Identifier: MIT
-- validation.sql -- the examples of docs/validation.md with their output:
-- calibration_summary and auroc_test, their edge cases and error texts.
.read ../../sql/demo_data.sql
.mode column
.headers on
-- calibration by channel, as rms::val.prob reports it
SELECT source, summary ->> '$.n' AS n, summary ->> '$.events' AS events,
       round(summary ->> '$.oe_ratio', 3) AS oe, round(summary ->> '$.citl', 3) AS citl,
       round(summary ->> '$.slope', 3) AS slope, round(summary ->> '$.spiegelhalter_z', 2) AS spieg_z,
       round(summary ->> '$.scaled_brier', 3) AS scaled_brier
FROM (SELECT source, calibration_summary(y, p) AS summary FROM preds GROUP BY source);
-- the slope with its 90 % Wald interval (R's confint.default on the glm)
SELECT source, round(summary ->> '$.slope', 3) AS slope, round(summary ->> '$.slope_lo', 3) AS lo,
       round(summary ->> '$.slope_hi', 3) AS hi, round(summary ->> '$.citl_lo', 3) AS citl_lo,
       round(summary ->> '$.citl_hi', 3) AS citl_hi
FROM (SELECT source, calibration_summary(y, p, 0.9) AS summary FROM preds GROUP BY source);
-- the smoothed calibration curve (rms::val.prob's lowess): ICI, E50, E90, Emax per channel
SELECT source, round(c ->> '$.ici', 4) AS ici, round(c ->> '$.e50', 4) AS e50, round(c ->> '$.e90', 4) AS e90,
       round(c ->> '$.emax', 4) AS emax, json_array_length(c ->> '$.curve') AS points
FROM (SELECT source, calibration_smooth(y, p) AS c FROM preds GROUP BY source);
-- does the score rank the app channel worse than the web channel?
SELECT round(t ->> '$.auroc_0', 4) AS auroc_app, round(t ->> '$.auroc_1', 4) AS auroc_web,
       round(t ->> '$.se', 4) AS se, round(t ->> '$.df', 1) AS df,
       round(t ->> '$.statistic', 3) AS t, round(t ->> '$.p_value', 4) AS p
FROM (SELECT auroc_test(y, s, source = 'web') AS t FROM preds WHERE source IN ('app', 'web'));
.mode list
.headers off
SELECT calibration_summary(y, p) FROM preds WHERE fold = 1;
SELECT auroc_test(y, s, source = 'web') FROM preds WHERE source IN ('app', 'web');
-- the same from per-channel states (e.g. two sites that share only states)
SELECT auroc_test((SELECT ml_state(y, s) FROM preds WHERE source = 'app'),
                  (SELECT ml_state(y, s) FROM preds WHERE source = 'web'))
     = (SELECT auroc_test(y, s, source = 'web') FROM preds WHERE source IN ('app', 'web'));
SELECT calibration_summary(st) = (SELECT calibration_summary(y, p) FROM preds)
FROM (SELECT ml_state(y, p) AS st FROM preds GROUP BY fold);
-- a window frame gives the aggregate over its rows
SELECT count(DISTINCT v) FROM (SELECT calibration_summary(y, p) OVER (PARTITION BY fold) AS v FROM preds WHERE fold = 3);
-- edge cases: one class, one value of p, perfect separation, a class of one row, no rows
SELECT calibration_summary(y, p) FROM preds WHERE y = 1 AND fold = 1 AND id < 200;
SELECT calibration_summary(y, 0.2) FROM preds WHERE fold = 2 AND id < 100;
SELECT calibration_summary(y, y) FROM preds WHERE id < 100;
SELECT auroc_test(y, s, g) FROM (SELECT 0 AS y, 0.1 AS s, 0 AS g UNION ALL SELECT 1, 0.9, 0 UNION ALL SELECT 0, 0.3, 0
  UNION ALL SELECT 1, 0.2, 1 UNION ALL SELECT 0, 0.1, 1 UNION ALL SELECT 0, 0.4, 1);
SELECT quote(auroc_test(y, s, g)) FROM (SELECT 1 AS y, 0.5 AS s, 0 AS g UNION ALL SELECT 0, 0.2, 1);
SELECT quote(calibration_summary(y, p)), quote(auroc_test(y, s, 0)) FROM preds WHERE 0;
-- errors
SELECT calibration_summary(y, p + 1) FROM preds;
SELECT calibration_summary(y, p, 10) FROM preds;
SELECT calibration_summary(y, p, 0.9, 1) FROM preds;
SELECT calibration_summary(y, p, CASE WHEN id = 1 THEN 0.9 ELSE 0.95 END) FROM preds;
SELECT calibration_summary_w(y, p, 1, 0) FROM preds;
SELECT calibration_smooth(y, p, 0.5) FROM preds;
SELECT calibration_smooth(s) FROM (SELECT ml_state(y, p) AS s FROM preds);
SELECT calibration_smooth(y, p) FROM (SELECT 1 AS y, 0.25 AS p UNION ALL SELECT 0, 0.25 UNION ALL SELECT 1, 0.75);
SELECT auroc_test(y, s, fold) FROM preds;
SELECT auroc_test(y, s) FROM preds;
SELECT auroc_test(x'00', x'00');
SELECT auroc_test((SELECT ml_state_ordinal(fold % 3, s, s) FROM preds), NULL);
SELECT auroc_test(y, s, 0, 1) FROM preds;
-- level within 2^-52 of 1: both ends of every interval finite (1 - a rounds to 1; issue 44)
SELECT c ->> '$.citl_lo' IS NOT NULL AND c ->> '$.citl_hi' IS NOT NULL AND c ->> '$.slope_hi' IS NOT NULL
       AND c ->> '$.intercept_hi' > c ->> '$.intercept' AND c ->> '$.intercept_lo' < c ->> '$.intercept'
FROM (SELECT calibration_summary(y, p, 1 - pow(2, -53)) AS c FROM preds);
