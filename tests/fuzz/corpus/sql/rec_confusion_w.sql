SELECT g, confusion_w(y, s, z / 4, 0.5) FROM t GROUP BY g;
SELECT confusion_w(y, s, z / 4, 0.5) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) FROM t;
