SELECT g, auprc_ge(o, s, 1) FROM t GROUP BY g;
SELECT auprc_ge(o, s, 1) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
SELECT auprc_ge(st, 1) FROM (SELECT ml_state_ordinal(o, s, p) AS st FROM t GROUP BY g);
