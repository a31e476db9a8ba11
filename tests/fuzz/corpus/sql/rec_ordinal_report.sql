SELECT g, ordinal_report(o, s, p) FROM t GROUP BY g;
SELECT ordinal_report(o, s, p) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT ordinal_report(st) FROM (SELECT ml_state_ordinal(o, s, p) AS st FROM t GROUP BY g);
