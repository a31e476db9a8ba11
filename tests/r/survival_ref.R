# SPDX-License-Identifier: MIT
# survival_ref.R -- R's numbers for tests/test_survival.py (issue 47): the
# survival family's reference values from the survival, prodlim,
# riskRegression and pec packages, over the cohorts the Python test writes.
#
# Usage: Rscript tests/r/survival_ref.R DIR
#   reads  DIR/cohorts.csv (set, time, event, risk, p, w): one row a subject;
#                          doubles as hex floats, so R reads the doubles
#                          Python holds
#          DIR/params.csv  (set, kind, value): kind "t" a horizon (km at t,
#                          Score), kind "tau" a truncation of C
#          DIR/long.csv    (set, row, horizon, p): the long rows of the
#                          integrated Brier score (row: the subject's
#                          1-based position in its set)
#   writes DIR/r.json, per set:
#     km      survfit(Surv(time, event) ~ 1, timefix = FALSE): the curve
#             (time, n_risk, n_event, n_censor, surv, se = std.err * surv,
#             which is summary()'s std.err)
#     km_at   summary(fit, times = t, extend = TRUE): surv, std.err,
#             n.risk, n.event, one per horizon
#     km_w, km_w_at  the same with weights = w (real, > 0), robust = FALSE
#             (Greenwood over weighted counts: the frequency rule)
#     G       prodlim(Hist(time, event) ~ 1, reverse = TRUE): the censoring
#             Kaplan-Meier (censorings after events at a tie; SPEC rule 2)
#     conc    per tau (null = none): concordance(Surv(time, event) ~ risk,
#             reverse = TRUE, ymax = tau, timefix = FALSE, influence = 1):
#             concordance, count, var, dfbeta; the same with timewt =
#             "n/G2" (Uno); and both with weights = w (concordance only)
#     conc_p  the same concordance with p as the risk (for a paired
#             difference: se^2 = sum (dfbeta_risk - dfbeta_p)^2)
#     score   riskRegression::Score(list(p), Hist(time, event) ~ 1, times
#             = the horizons, metrics = c("auc", "brier"), cens.model =
#             "km", summary = "ipa", null.model = TRUE): AUC, Brier, the
#             null model's Brier, IPA at each horizon (null where Score has
#             no number; horizons past the last time are dropped, as Score
#             drops them)
#     ibs     Score over the long rows (a prediction matrix, one column a
#             horizon), summary = "ibs": the Brier scores and the IBS at the
#             last horizon of the model and of the null model; and
#             pec::ibs of pec::pec over the same matrix (1 - p; pec adds
#             the time 0, whose column is 1)
# Every computation is wrapped: an error gives null and its message under
# "error_*".  Numbers are written with 17 significant digits (%.17g), JSON
# by hand, so nothing beyond the packages named is needed.
suppressMessages({ library(survival); library(prodlim); library(riskRegression); library(pec) })

args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]

num <- function(x) ifelse(is.na(x) | !is.finite(x), "null", sprintf("%.17g", x))
vec <- function(x) paste0("[", paste(num(x), collapse = ","), "]")
str <- function(s) sprintf("\"%s\"", gsub("[\"\\\\\n]", " ", s))
obj <- function(kv) paste0("{", paste(sprintf("\"%s\":%s", names(kv), unlist(kv)), collapse = ","), "}")
arr <- function(l) paste0("[", paste(unlist(l), collapse = ","), "]")
try_obj <- function(expr) tryCatch(expr, error = function(e) obj(list(error = str(conditionMessage(e)))))

km_curve <- function(f) obj(list(time = vec(f$time), n_risk = vec(f$n.risk), n_event = vec(f$n.event),
                                  n_censor = vec(f$n.censor), surv = vec(f$surv),
                                  se = vec(f$std.err * f$surv)))
km_at <- function(f, ts) arr(lapply(ts, function(t) {
  s <- summary(f, times = t, extend = TRUE)
  obj(list(t = num(t), surv = num(s$surv), se = num(s$std.err), n_risk = num(s$n.risk), n_event = num(s$n.event)))
}))

conc <- function(d, tau, x, w = FALSE, timewt = "n", influence = 1) {
  f <- Surv(time, event) ~ xx
  d$xx <- x
  a <- list(f, data = d, reverse = TRUE, timefix = FALSE, timewt = timewt, influence = influence)
  if (!is.na(tau)) a$ymax <- tau
  if (w) a$weights <- d$w
  do.call(concordance, a)
}

one_set <- function(d, ts, taus, lg) {
  out <- list()
  f <- survfit(Surv(time, event) ~ 1, data = d, timefix = FALSE)
  out$km <- km_curve(f)
  out$km_at <- km_at(f, ts)
  # robust = FALSE: Greenwood over the weighted counts (the frequency rule);
  # survfit's default with real weights is the robust (sandwich) se
  fw <- survfit(Surv(time, event) ~ 1, data = d, weights = w, timefix = FALSE, robust = FALSE)
  out$km_w <- km_curve(fw)
  out$km_w_at <- km_at(fw, ts)
  out$G <- try_obj({
    g <- prodlim(Hist(time, event) ~ 1, data = d, reverse = TRUE)
    obj(list(time = vec(g$time), surv = vec(g$surv)))
  })
  out$conc <- arr(lapply(c(NA, taus), function(tau) try_obj({
    h <- conc(d, tau, d$risk)
    u <- conc(d, tau, d$risk, timewt = "n/G2", influence = 0)
    hw <- conc(d, tau, d$risk, w = TRUE, influence = 0)
    uw <- conc(d, tau, d$risk, w = TRUE, timewt = "n/G2", influence = 0)
    hp <- conc(d, tau, d$p)
    obj(list(tau = num(tau), c = num(h$concordance), count = vec(h$count), var = num(h$var),
             dfbeta = vec(h$dfbeta), uno = num(u$concordance), c_w = num(hw$concordance),
             uno_w = num(uw$concordance), c_p = num(hp$concordance), dfbeta_p = vec(hp$dfbeta)))
  })))
  # Score drops the horizons past the last follow-up time (null here)
  tsok <- ts[ts <= max(d$time)]
  out$score <- try_obj({
    s <- Score(list(m = matrix(d$p, nrow(d), length(tsok))), Hist(time, event) ~ 1, data = d, times = tsok,
               metrics = c("auc", "brier"), cens.model = "km", summary = "ipa", null.model = TRUE,
               conf.int = FALSE)
    A <- as.data.frame(s$AUC$score); B <- as.data.frame(s$Brier$score)
    pick <- function(tab, model, col) sapply(ts, function(t) {
      v <- tab[tab$model == model & tab$times == t, col]; if (length(v)) v[1] else NA })
    obj(list(times = vec(ts), auc = vec(pick(A, "m", "AUC")), brier = vec(pick(B, "m", "Brier")),
             brier_null = vec(pick(B, "Null model", "Brier")), ipa = vec(pick(B, "m", "IPA"))))
  })
  if (!is.null(lg) && nrow(lg)) {
    hz <- sort(unique(lg$horizon))
    hz <- hz[hz <= max(d$time)]
    lg <- lg[lg$horizon %in% hz, ]
    P <- matrix(NA_real_, nrow(d), length(hz))
    P[cbind(lg$row, match(lg$horizon, hz))] <- lg$p
    out$ibs <- try_obj({
      s <- Score(list(m = P), Hist(time, event) ~ 1, data = d, times = hz, metrics = "brier",
                 cens.model = "km", summary = "ibs", null.model = TRUE, conf.int = FALSE)
      B <- as.data.frame(s$Brier$score)
      pick <- function(model, col) sapply(hz, function(t) {
        v <- B[B$model == model & B$times == t, col]; if (length(v)) v[1] else NA })
      ib <- pick("m", "IBS"); ibn <- pick("Null model", "IBS")
      pe <- tryCatch({
        pp <- pec(list(m = cbind(1, 1 - P)), formula = Surv(time, event) ~ 1, data = d, times = hz, exact = FALSE,
                  cens.model = "marginal", reference = TRUE, verbose = FALSE)
        ii <- ibs(pp, times = max(hz))
        c(ii[rownames(ii) == "m", 1], ii[rownames(ii) == "Reference", 1])
      }, error = function(e) c(NA, NA))
      obj(list(times = vec(hz), brier = vec(pick("m", "Brier")), brier_null = vec(pick("Null model", "Brier")),
               ibs = num(ib[length(ib)]), ibs_null = num(ibn[length(ibn)]),
               pec_ibs = num(pe[1]), pec_ibs_null = num(pe[2])))
    })
  }
  obj(out)
}

co <- read.csv(file.path(dir, "cohorts.csv"))
pa <- read.csv(file.path(dir, "params.csv"))
lo <- if (file.exists(file.path(dir, "long.csv"))) read.csv(file.path(dir, "long.csv")) else NULL
sets <- unique(co$set)
res <- lapply(sets, function(k) {
  d <- co[co$set == k, c("time", "event", "risk", "p", "w")]
  rownames(d) <- NULL
  ts <- pa$value[pa$set == k & pa$kind == "t"]
  taus <- pa$value[pa$set == k & pa$kind == "tau"]
  lg <- if (is.null(lo)) NULL else lo[lo$set == k, ]
  one_set(d, ts, taus, lg)
})
names(res) <- as.character(sets)
ver <- obj(list(R = str(R.version.string), survival = str(packageVersion("survival")),
                prodlim = str(packageVersion("prodlim")), riskRegression = str(packageVersion("riskRegression")),
                pec = str(packageVersion("pec"))))
writeLines(obj(list(sets = obj(res), versions = ver)), file.path(dir, "r.json"))
