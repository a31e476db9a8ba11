# SPDX-License-Identifier: MIT
# survival2_ref.R -- R's numbers for tests/test_survival2.py (issue 49): the
# survival family's part 2 (calibration and net benefit at a horizon, the
# paired difference of two C) from the survival and riskRegression packages,
# over the cohorts the Python test writes.  One Rscript run for all of them.
#
# Usage: Rscript tests/r/survival2_ref.R DIR
#   reads  DIR/cohorts.csv (set, time, event, p, risk, risk_b, w): one row a
#          subject, doubles as hex floats (R reads the doubles Python holds)
#          DIR/params.csv  (set, t, bins, tau; tau "Inf" for none)
#          DIR/thresholds.csv (set, pt): the thresholds of the decision curve
#   writes DIR/r.json, per set:
#     cal     plotCalibration's rule by hand: breaks = quantile(p, seq(0, 1,
#             1/bins)) (type 7), unique(), cut(include.lowest = TRUE); per
#             non-empty level: lo, hi, n, mean p, 1 - summary(survfit(...),
#             times = t)$surv and its std.err within the level (null when t
#             is past the level's last time: survfit has no row there)
#     rr      riskRegression::plotCalibration(Score(...), method =
#             "quantile", q = bins, cens.method = "local")$plotFrames: Pred,
#             Obs per level (an error when the breaks are not unique, as cut
#             refuses them: then "error")
#     km_all  1 - S(t) of every row; mean_p
#     nb      per threshold: P = mean(p >= pt), risk = 1 - S(t) among those
#             rows (survfit), NB = risk P - (1 - risk) P pt / (1 - pt) (dcurves'
#             survival rule); null risk where survfit has no row at t
#     nb_w    the same with weights = w (P the weights' share, survfit(weights))
#     cdiff   concordance(Surv(time, event) ~ risk, reverse = TRUE,
#             influence = 1 [, ymax = tau], timefix = FALSE) and the same for
#             risk_b: c_a, c_b, se = sqrt(sum((dfbeta_a - dfbeta_b)^2))
suppressMessages({ library(survival); library(riskRegression); library(prodlim) })
pdf(NULL)   # plotCalibration(plot = FALSE) still opens a device: no Rplots.pdf

args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]

num <- function(x) ifelse(is.na(x) | !is.finite(x), "null", sprintf("%.17g", x))
vec <- function(x) paste0("[", paste(num(x), collapse = ","), "]")
obj <- function(kv) paste0("{", paste(sprintf("\"%s\":%s", names(kv), unlist(kv)), collapse = ","), "}")
arr <- function(l) paste0("[", paste(unlist(l), collapse = ","), "]")

co <- read.csv(file.path(dir, "cohorts.csv"), colClasses = "character")
for (v in c("time", "p", "risk", "risk_b", "w")) co[[v]] <- as.numeric(co[[v]])
co$event <- as.integer(co$event)
pa <- read.csv(file.path(dir, "params.csv"), colClasses = "character")
th <- read.csv(file.path(dir, "thresholds.csv"), colClasses = "character")
th$pt <- as.numeric(th$pt)

# 1 - S(t) and its std.err from survfit over the rows (weights w), NA past the last time
km_at <- function(time, event, t, w = NULL) {
  if (length(time) == 0) return(c(NA, NA))
  f <- if (is.null(w)) survfit(Surv(time, event) ~ 1, timefix = FALSE)
       else survfit(Surv(time, event) ~ 1, weights = w, timefix = FALSE)
  tryCatch({ s <- summary(f, times = t); c(1 - s$surv, s$std.err) }, error = function(e) c(NA, NA))
}

out <- list()
for (k in unique(co$set)) {
  d <- co[co$set == k, ]
  pr <- pa[pa$set == k, ]
  t <- as.numeric(pr$t); bins <- as.integer(pr$bins); tau <- as.numeric(pr$tau)
  br <- quantile(d$p, seq(0, 1, 1/bins), names = FALSE)
  ub <- unique(br)
  g <- if (length(ub) > 1) cut(d$p, ub, include.lowest = TRUE) else factor(rep("one", nrow(d)))
  cal <- list()
  for (j in seq_along(levels(g))) {
    s <- g == levels(g)[j]
    if (!any(s)) next
    o <- km_at(d$time[s], d$event[s], t)
    lo <- ub[j]; hi <- if (length(ub) > 1) ub[j + 1] else ub[1]
    cal[[length(cal) + 1]] <- obj(list(lo = num(lo), hi = num(hi), n = num(sum(s)), pred = num(mean(d$p[s])),
                                       obs = num(o[1]), obs_se = num(o[2])))
  }
  rr <- tryCatch({
    x <- Score(list(m = d$p), formula = Hist(time, event) ~ 1, data = data.frame(time = d$time, event = d$event),
               times = t, plots = "cal", metrics = "brier", null.model = FALSE, cens.model = "km", summary = NULL)
    pf <- plotCalibration(x, times = t, method = "quantile", q = bins, cens.method = "local", plot = FALSE)$plotFrames[[1]]
    obj(list(pred = vec(pf$Pred), obs = vec(pf$Obs)))
  }, error = function(e) "\"error\"")
  ka <- km_at(d$time, d$event, t)
  pts <- th$pt[th$set == k]
  nb <- lapply(pts, function(pt) {
    s <- d$p >= pt
    P <- mean(s)
    r <- km_at(d$time[s], d$event[s], t)[1]
    obj(list(pt = num(pt), pos = num(P), risk = num(r), nb = num(r * P - (1 - r) * P * pt / (1 - pt))))
  })
  nbw <- lapply(pts, function(pt) {
    s <- d$p >= pt
    P <- sum(d$w[s]) / sum(d$w)
    r <- km_at(d$time[s], d$event[s], t, d$w[s])[1]
    obj(list(pt = num(pt), pos = num(P), risk = num(r), nb = num(r * P - (1 - r) * P * pt / (1 - pt))))
  })
  cdiff <- tryCatch({
    cc <- function(x) {
      if (is.finite(tau)) concordance(Surv(d$time, d$event) ~ x, reverse = TRUE, influence = 1, ymax = tau, timefix = FALSE)
      else concordance(Surv(d$time, d$event) ~ x, reverse = TRUE, influence = 1, timefix = FALSE)
    }
    a <- cc(d$risk); b <- cc(d$risk_b)
    obj(list(c_a = num(a$concordance), c_b = num(b$concordance), se = num(sqrt(sum((a$dfbeta - b$dfbeta)^2)))))
  }, error = function(e) "\"error\"")
  out[[length(out) + 1]] <- sprintf("\"%s\":%s", k, obj(list(
    cal = arr(cal), rr = rr, km_all = num(ka[1]), mean_p = num(mean(d$p)),
    nb = arr(nb), nb_w = arr(nbw), cdiff = cdiff)))
}
writeLines(paste0("{", paste(unlist(out), collapse = ","), "}"), file.path(dir, "r.json"))
