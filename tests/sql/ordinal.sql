-- SPEC Ordinal section: values, one-class cuts, label and argument errors.
.mode list
CREATE TABLE o(y, s1, s2);
INSERT INTO o VALUES (0,0.1,0.0),(0,0.3,0.1),(1,0.6,0.2),(1,0.2,0.4),(2,0.9,0.8),(0,0.5,0.05);
-- cut 1: y>=1 at s1: ranks .9(+) .6(+) .5(-) .3(-) .2(+) .1(-): AP = (1 + 1 + 3/5)/3 = 0.8667
-- cut 2: y>=2 at s2: .8(+) first: AP = 1
SELECT 'values', round(auprc_ge(y, s1, 1), 12), round(auprc_ge(y, s2, 2), 12), round(ordinal_auprc(y, s1, s2), 12),
       round(ordinal_nap(y, s1, s2), 12) FROM o;
SELECT 'report', ordinal_report(y, s1, s2) FROM o;
SELECT 'report json', ordinal_report(y, s1, s2) ->> '$.severity_ordering_ap' FROM o;
-- a cut with one class: NULL (the original script reports 0.0)
SELECT 'one-class cut', quote(ordinal_auprc(y, s1, s2)), quote(ordinal_nap(y, s1, s2)), quote(auprc_ge(y, s1, 2))
FROM o WHERE y < 2;
SELECT 'one-class report', ordinal_report(y, s1, s2) FROM o WHERE y < 2;
SELECT 'empty', quote(ordinal_auprc(y, s1, s2)), quote(ordinal_report(y, s1, s2)) FROM o WHERE 0;
-- m = 1 is binary pr_auc
SELECT 'm=1', ordinal_auprc(y, s1) = pr_auc(y, s1) FROM o WHERE y < 2;
-- a NULL score skips the row
SELECT 'null score', ordinal_auprc(y, s1, s2) = (SELECT ordinal_auprc(y, s1, s2) FROM o)
FROM (SELECT * FROM o UNION ALL SELECT 2, NULL, 0.9 UNION ALL SELECT 1, 0.1, NULL);
-- errors
SELECT ordinal_auprc(3, 0.1, 0.2);
SELECT ordinal_nap(-1, 0.1, 0.2);
SELECT ordinal_report(1.5, 0.1, 0.2);
SELECT ordinal_auprc('high', 0.1, 0.2);
SELECT ordinal_auprc(1, 0.1, 'x');
SELECT ordinal_auprc(1);
SELECT ordinal_auprc(1, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17);
SELECT auprc_ge(1, 0.5, 0);
SELECT auprc_ge(-2, 0.5, 1);
SELECT auprc_ge(y, s1, y + 1) FROM o;
