# SPDX-License-Identifier: MIT
# survival_gbsg.R -- the worked example of docs/survival.md: the survival
# package's own external validation (Royston & Altman 2013, BMC Med Res
# Methodol 13:33): a Cox model for recurrence-free survival fitted on the
# node-positive patients of `rotterdam`, validated on `gbsg`.
#
# Usage: Rscript tests/r/survival_gbsg.R DIR
#   writes DIR/gbsg_valid.csv: one row per gbsg patient: pid, time (years,
#          rfstime / 365.25), event (status: recurrence or death), risk (the
#          model's linear predictor), p5 (its predicted probability of an
#          event by 5 years, riskRegression::predictRisk); doubles as hex
#          floats, so Python reads exactly R's doubles.  The test suite's
#          copy is tests/data/gbsg_valid.csv.
#   writes DIR/r.json: R's numbers on it at t = 5 years: concordance
#          (reverse = TRUE; with ymax = 5; timewt = "n/G2", ymax = 5) with
#          var, Score's AUC, Brier, null Brier and IPA, survfit's KM at 5,
#          pec::cindex at 5.
# The model: age, menopause, size group, grade 3, nodes (capped at 20),
# log(pgr + 1), log(er + 1), hormonal therapy -- the variables both data
# sets share, as in the help page of gbsg.
suppressMessages({ library(survival); library(riskRegression); library(pec) })

args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
num <- function(x) ifelse(is.na(x) | !is.finite(x), "null", sprintf("%.17g", x))
obj <- function(kv) paste0("{", paste(sprintf("\"%s\":%s", names(kv), unlist(kv)), collapse = ","), "}")
hex <- function(x) sprintf("%a", x)

rott <- subset(rotterdam, nodes > 0)                      # gbsg's patients are node positive
rott$rfs <- with(rott, pmax(recur, death))
rott$ryear <- with(rott, ifelse(recur == 1, rtime, dtime)) / 365.25
g <- gbsg
g$size <- cut(g$size, c(-Inf, 20, 50, Inf), labels = levels(rotterdam$size))
g$ryear <- g$rfstime / 365.25
g$rfs <- g$status
fit <- coxph(Surv(ryear, rfs) ~ age + meno + size + I(grade == 3) + pmin(nodes, 20) + log(pgr + 1) +
               log(er + 1) + hormon, data = rott, x = TRUE)
risk <- unname(predict(fit, newdata = g, type = "lp"))
p5 <- unname(predictRisk(fit, newdata = g, times = 5)[, 1])
d <- data.frame(pid = g$pid, time = g$ryear, event = g$rfs, risk = risk, p5 = p5)
writeLines(c("pid,time,event,risk,p5",
             sprintf("%d,%s,%d,%s,%s", d$pid, hex(d$time), d$event, hex(d$risk), hex(d$p5))),
           file.path(dir, "gbsg_valid.csv"))

cc <- function(...) concordance(Surv(time, event) ~ risk, data = d, reverse = TRUE, timefix = FALSE, ...)
h <- cc(); h5 <- cc(ymax = 5); u5 <- cc(ymax = 5, timewt = "n/G2"); u <- cc(timewt = "n/G2")
s <- Score(list(m = d$p5), Hist(time, event) ~ 1, data = d, times = 5, metrics = c("auc", "brier"),
           cens.model = "km", summary = "ipa", null.model = TRUE, conf.int = FALSE)
A <- as.data.frame(s$AUC$score); B <- as.data.frame(s$Brier$score)
km <- summary(survfit(Surv(time, event) ~ 1, data = d, timefix = FALSE), times = 5)
pc <- pec::cindex(list(m = as.matrix(1 - d$p5)), formula = Surv(time, event) ~ 1, data = d,
                  eval.times = 5)$AppCindex$m
writeLines(obj(list(
  n = num(nrow(d)), events = num(sum(d$event)),
  harrell = num(h$concordance), harrell_se = num(sqrt(h$var)), harrell5 = num(h5$concordance),
  harrell5_se = num(sqrt(h5$var)), uno5 = num(u5$concordance), uno = num(u$concordance),
  auc5 = num(A$AUC[A$model == "m"]), brier5 = num(B$Brier[B$model == "m"]),
  brier5_null = num(B$Brier[B$model == "Null model"]), ipa5 = num(B$IPA[B$model == "m"]),
  km5 = num(km$surv), km5_se = num(km$std.err), km5_n_risk = num(km$n.risk), km5_n_event = num(km$n.event),
  pec_cindex5 = num(pc), coef = paste0("[", paste(num(coef(fit)), collapse = ","), "]"),
  R = sprintf("\"%s\"", R.version.string), survival = sprintf("\"%s\"", packageVersion("survival")),
  riskRegression = sprintf("\"%s\"", packageVersion("riskRegression")))),
  file.path(dir, "r.json"))
