-- Reliability (issue 12): windows equal the aggregate even for sums and for
-- parameters that differ between frames; messages show exact values.
.mode list
.headers off
-- 1. a parameter follows the frame's rows (the issue's repro): every frame
--    agrees, so every frame has a value, equal to the aggregate over its rows
CREATE TABLE w(id INTEGER PRIMARY KEY,y,p,b); INSERT INTO w VALUES(1,0,.1,5),(2,1,.8,5),(3,0,.3,5),(4,1,.9,7),(5,0,.2,7),(6,1,.6,7);
SELECT id, ece(y,p,b) OVER (ORDER BY id ROWS CURRENT ROW) FROM w;
SELECT 'agg id=4', ece(y,p,b) FROM w WHERE id=4;
-- frames of several rows: peer groups g, each with its own bins
CREATE TABLE w2(id INTEGER PRIMARY KEY,g,y,p,b); INSERT INTO w2 VALUES(1,1,0,.1,5),(2,1,1,.8,5),(3,2,0,.3,6),(4,2,1,.9,6),(5,2,1,.35,6),(6,3,0,.2,7),(7,3,1,.6,7);
SELECT 'groups', id, ece(y,p,b) OVER win = (SELECT ece(y,p,b) FROM w2 AS v WHERE v.g=w2.g) FROM w2 WINDOW win AS (ORDER BY g GROUPS CURRENT ROW);
-- frames that start FOLLOWING: SQLite steps the next frame before it removes the last
SELECT 'following', id, ece(y,p,b) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 2 FOLLOWING) FROM w;
SELECT 'following groups', id, ece(y,p,b) OVER (ORDER BY g GROUPS BETWEEN 1 FOLLOWING AND 1 FOLLOWING) FROM w2;
SELECT 'reliability', id, reliability(y,p,b) OVER (ORDER BY id ROWS CURRENT ROW) FROM w WHERE id IN (3,4);
SELECT 'kumar', id, quote(ece_l2_kumar(y,p,b-4) OVER (ORDER BY id ROWS CURRENT ROW)) FROM w;
SELECT 'log_loss', id, log_loss(y,p,b*1e-3) OVER (ORDER BY id ROWS CURRENT ROW) = (SELECT log_loss(y,p,b*1e-3) FROM w AS v WHERE v.id=w.id) FROM w;
SELECT 'confusion', id, json_extract(confusion(y,p,b/10.0) OVER (ORDER BY id ROWS CURRENT ROW), '$.tp') FROM w;
SELECT 'tpr_at_fpr', id, tpr_at_fpr(y,p,b/10.0) OVER (ORDER BY g GROUPS CURRENT ROW) FROM w2;
SELECT 'auprc_ge', id, auprc_ge(y+g-1,p,b-4) OVER (ORDER BY g GROUPS CURRENT ROW) FROM w2;
SELECT 'ordinal k=2', auprc_ge(y+g-1,p,2) FROM w2 WHERE g=3;
SELECT 'strat', id, json_extract(strat_report(y,p,p,b/10.0-0.5,0.9) OVER (ORDER BY id ROWS CURRENT ROW), '$.q_low') FROM w;
-- a frame whose rows disagree is still an error
SELECT id, ece(y,p,b) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM w;
SELECT id, confusion(y,p,b) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM w;
SELECT ece(y,p,b) FROM w;
-- 2. exact sums (the issue's repro): the frame's sum, not a residue of rows that left
CREATE TABLE t(id INTEGER PRIMARY KEY,y,p); INSERT INTO t VALUES(1,0,3e-17),(2,0,0.123456789),(3,0,0.9),(4,0,3e-17),(5,0,1e-17),(6,0,1e-17),(7,0,1e-17);
SELECT id, brier(y,p) OVER (ORDER BY id ROWS 2 PRECEDING) FROM t;
SELECT 'agg 5..7', brier(y,p) FROM t WHERE id BETWEEN 5 AND 7;
SELECT 'window=agg', id, brier(y,p) OVER (ORDER BY id ROWS 2 PRECEDING) = (SELECT brier(y,p) FROM t AS u WHERE u.id BETWEEN t.id-2 AND t.id) FROM t;
SELECT 'log_loss window=agg', id, log_loss(y,p) OVER (ORDER BY id ROWS 2 PRECEDING) = (SELECT log_loss(y,p) FROM t AS u WHERE u.id BETWEEN t.id-2 AND t.id) FROM t;
SELECT 'ece window=agg', id, ece(y,p) OVER (ORDER BY id ROWS 2 PRECEDING) = (SELECT ece(y,p) FROM t AS u WHERE u.id BETWEEN t.id-2 AND t.id) FROM t;
-- 3. messages show the value exactly, and cut text at a character
SELECT brier(1.0000000000000002, 0.5);
SELECT tpr_at_fpr(y, s, CASE WHEN y = 0 THEN 0.1 ELSE 0.10000000000000002 END) FROM (SELECT 0 AS y, 0.5 AS s UNION ALL SELECT 1, 0.6);
SELECT pr_auc('€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€€', 0.5);
