-- survival_clinical.c and survival_boot.c: surv_calibration, surv_net_benefit,
-- surv_decision_curve, surv_auroc_ci, surv_brier_ci, c_index_diff and their twins
-- (docs/survival.md; SPEC "Round 5"; R's numbers: tests/test_survival2.py)
.log stderr
CREATE TABLE d(time, event, p, risk, risk_b);
INSERT INTO d VALUES (1, 1, 0.8, 2.0, 1.0), (2, 0, 0.3, 0.5, 0.2), (2, 1, 0.6, 1.5, 0.9), (3, 1, 0.4, 1.0, 1.5),
  (4, 0, 0.2, 0.1, 0.3), (5, 1, 0.7, 1.2, 0.4), (6, 0, 0.1, -0.3, 0.1), (6, 1, 0.5, 0.8, 0.8),
  (7, 0, 0.3, 0.0, 0.6), (8, 1, 0.6, 0.9, 0.7), (NULL, 1, 0.5, 0, 0), (7, NULL, 0.5, 0, 0), (7, 1, NULL, 0, 0);
-- calibration at t: quantile groups of p (type 7, duplicates merged), 1 - KM within each
SELECT surv_calibration(time, event, p, 4) FROM d;
SELECT surv_calibration(time, event, p, 4, 2) FROM d;
SELECT surv_calibration(time, event, 0.5, 4) FROM d;
-- a bin whose follow-up ends before t: obs null; all rows' follow-up short: NULL
SELECT surv_calibration(time, event, p, 7.5, 3) FROM d;
SELECT surv_calibration(time, event, p, 9) FROM d;
-- net benefit at t, the decision curve, treat-all from the overall KM
SELECT surv_net_benefit(time, event, p, 4, 0.3), surv_net_benefit(time, event, p, 4, 0.9) FROM d;
SELECT surv_decision_curve(time, event, p, 4, 0.2, 0.8, 0.2) FROM d;
SELECT surv_decision_curve(time, event, p, 7.5, 0.5, 0.7, 0.1) FROM d;
SELECT surv_net_benefit(time, event, p, 7.5, 0.6) FROM d;
-- intervals: the estimate is the point function's value
SELECT surv_auroc_ci(time, event, risk, 4, 0.9, 50, 3) FROM d;
SELECT json_extract(surv_auroc_ci(time, event, risk, 4, 0.9, 50, 3), '$.estimate') = surv_auroc(time, event, risk, 4),
       json_extract(surv_brier_ci(time, event, p, 4, 0.9, 50, 3), '$.estimate') = surv_brier(time, event, p, 4) FROM d;
SELECT surv_auroc_ci(time, event, risk, 0.5) FROM d;
-- the paired difference of two models' C
SELECT c_index_diff(time, event, risk, risk_b) FROM d;
SELECT c_index_diff(time, event, risk, risk_b, 3) FROM d;
SELECT c_index_diff(time, event, risk, risk) FROM d;
SELECT c_index_diff(time, 0, risk, risk_b) FROM d;
-- twins: integer weights are the rows repeated
CREATE VIEW dx2 AS SELECT * FROM d UNION ALL SELECT * FROM d;
SELECT (SELECT surv_calibration_w(time, event, p, 2, 4) FROM d) = (SELECT surv_calibration(time, event, p, 4) FROM dx2),
       (SELECT surv_decision_curve_w(time, event, p, 2, 4) FROM d) = (SELECT surv_decision_curve(time, event, p, 4) FROM dx2),
       (SELECT c_index_diff_w(time, event, risk, risk_b, 2) FROM d) = (SELECT c_index_diff(time, event, risk, risk_b) FROM dx2);
SELECT surv_net_benefit_w(time, event, p, 0.5 + p, 4, 0.3) FROM d;
-- windows
SELECT rowid, surv_net_benefit(time, event, p, 2, 0.3) OVER (ORDER BY rowid ROWS BETWEEN 2 PRECEDING AND 3 FOLLOWING) FROM d;
-- no rows
SELECT surv_calibration(time, event, p, 4), c_index_diff(time, event, risk, risk_b) FROM d WHERE 0;
-- errors name the function, the argument and the value
SELECT surv_calibration(-1, 1, 0.5, 2);
SELECT surv_calibration(1, 2, 0.5, 2);
SELECT surv_calibration(1, 1, 1.5, 2);
SELECT surv_calibration(1, 1, 0.5, 0);
SELECT surv_calibration(1, 1, 0.5, 2, 0);
SELECT surv_calibration(time, event, p, rowid) FROM d;
SELECT surv_net_benefit(1, 1, 0.5, 2, 1);
SELECT surv_net_benefit(1, 1, 0.5, 2);
SELECT surv_decision_curve(1, 1, 0.5, 2, 0.5, 0.2);
SELECT surv_decision_curve(1, 1, 0.5, 2, 0.001, 0.999, 0.00001);
SELECT surv_auroc_ci(1, 1, 0.5, 2, 0.95, 5);
SELECT surv_auroc_ci(1, 1, 0.5, 2, 1.5);
SELECT surv_brier_ci(1, 1, 'x', 2);
SELECT c_index_diff(1, 1, 0.5, 'x');
SELECT c_index_diff(1, 1, 0.5, 0.5, -1);
SELECT c_index_diff_w(1, 1, 0.5, 0.5, -1);
-- seed keeps its 63 bits; two seeds equal only as doubles are two seeds
SELECT json_extract(surv_auroc_ci(time, event, risk, 4, 0.9, 10, 9223372036854775807), '$.seed') FROM d;
SELECT surv_auroc_ci(time, event, risk, 4, 0.9, 10, CASE WHEN rowid = 1 THEN 9223372036854775807 ELSE 9223372036854775806 END) FROM d;
