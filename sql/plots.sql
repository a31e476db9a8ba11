-- mleval plots: the pictures of docs/plots.md, drawn from the demo data.
-- Run from the top of the tree (writefile() is the sqlite3 shell's):
--   sqlite3 -cmd '.load ext/.libs/mleval' :memory: < sql/plots.sql
.read sql/demo_data.sql

-- PR curves per fold: a dashed no-skill baseline at each fold's prevalence, AP in the legend.
SELECT writefile('docs/img/pr_curves.svg',
  plot_curves('fold ' || fold, c, 'PR curves per fold'))
FROM (SELECT fold, pr_curve(y, s) AS c FROM preds GROUP BY fold ORDER BY fold);

-- ROC curves per source: the diagonal, AUROC in the legend.
SELECT writefile('docs/img/roc_curves.svg',
  plot_curves(source, c, 'ROC curves per source'))
FROM (SELECT source, roc_curve(y, s) AS c FROM preds GROUP BY source ORDER BY source);

-- Reliability diagram per source, with the histogram of predicted probabilities.
SELECT writefile('docs/img/reliability.svg',
  plot_reliability(source, r, 'Reliability per source (10 bins)'))
FROM (SELECT source, reliability(y, p, 10) AS r FROM preds GROUP BY source ORDER BY source);

-- Drift: PR-AUC over the last 1000 predictions per source, every 250th row.
SELECT writefile('docs/img/drift.svg',
  plot_lines(source, ts, ap, 'PR-AUC over the last 1000 predictions'))
FROM (SELECT id, source, ts, pr_auc(y, s) OVER w AS ap FROM preds
      WINDOW w AS (PARTITION BY source ORDER BY id ROWS BETWEEN 999 PRECEDING AND CURRENT ROW))
WHERE id % 250 = 0 AND ap IS NOT NULL;

-- Grouped bars: AP and AUROC per source (svd_targets.sql draws the SVD cost the same way).
SELECT writefile('docs/img/bars.svg', plot_bars(source, metric, v, 'Ranking metrics per source'))
FROM (SELECT source, 'AP' AS metric, pr_auc(y, s) AS v FROM preds GROUP BY source
      UNION ALL SELECT source, 'AUROC', auroc(y, s) FROM preds GROUP BY source
      UNION ALL SELECT source, 'nAP', nap(y, s) FROM preds GROUP BY source
      ORDER BY 1, 2);
