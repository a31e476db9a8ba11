SELECT g, drift_report(o % 2, s, 10) FROM t GROUP BY g;
SELECT drift_report(o % 2, s, 10) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
