SELECT hex(ml_merge(st)) FROM (SELECT ml_state(y, s) AS st FROM t GROUP BY g);
SELECT hex(ml_merge(st) OVER (ORDER BY g ROWS 1 PRECEDING)) FROM (SELECT g, ml_state(y, s, z) AS st FROM t GROUP BY g);
