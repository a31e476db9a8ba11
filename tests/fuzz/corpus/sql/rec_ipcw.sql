SELECT ipcw(c, z, y, 5) FROM t, (SELECT censoring_km(z, y) AS c FROM t);
