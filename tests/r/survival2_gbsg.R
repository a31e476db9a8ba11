# SPDX-License-Identifier: MIT
# survival2_gbsg.R -- the worked example of docs/survival.md: the survival
# package's own external validation (Royston & Altman 2013, BMC Med Res
# Methodol 13:33), a Cox model for recurrence-free survival fitted on the
# node-positive patients of `rotterdam` and validated on `gbsg` -- and a
# reduced model (age, size, nodes) to compare it with.
#
# Usage: Rscript tests/r/survival2_gbsg.R DIR
#   writes DIR/gbsg2_valid.csv: one row per gbsg patient: pid, time (years,
#          rfstime / 365.25), event (recurrence or death), risk_full, p5_full
#          (the full model's linear predictor and its predicted probability of
#          an event by 5 years, riskRegression::predictRisk), risk_small,
#          p5_small (the reduced model's); numbers with 17 significant digits
#          (a correctly rounding reader gets R's doubles).  The test suite's
#          copy is tests/data/gbsg2_valid.csv.
# The full model is tests/r/survival_gbsg.R's (age, menopause, size group,
# grade 3, nodes capped at 20, log(pgr + 1), log(er + 1), hormonal therapy).
suppressMessages({ library(survival); library(riskRegression) })
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
rott <- subset(rotterdam, nodes > 0)
rott$rfs <- with(rott, pmax(recur, death))
rott$ryear <- with(rott, ifelse(recur == 1, rtime, dtime)) / 365.25
g <- gbsg
g$size <- cut(g$size, c(-Inf, 20, 50, Inf), labels = levels(rotterdam$size))
g$ryear <- g$rfstime / 365.25
g$rfs <- g$status
full <- coxph(Surv(ryear, rfs) ~ age + meno + size + I(grade == 3) + pmin(nodes, 20) + log(pgr + 1) +
                log(er + 1) + hormon, data = rott, x = TRUE)
small <- coxph(Surv(ryear, rfs) ~ age + size + pmin(nodes, 20), data = rott, x = TRUE)
f17 <- function(x) sprintf("%.17g", x)
d <- data.frame(pid = g$pid, time = g$ryear, event = g$rfs,
                risk_full = unname(predict(full, newdata = g, type = "lp")),
                p5_full = unname(predictRisk(full, newdata = g, times = 5)[, 1]),
                risk_small = unname(predict(small, newdata = g, type = "lp")),
                p5_small = unname(predictRisk(small, newdata = g, times = 5)[, 1]))
writeLines(c("pid,time,event,risk_full,p5_full,risk_small,p5_small",
             sprintf("%d,%s,%d,%s,%s,%s,%s", d$pid, f17(d$time), d$event, f17(d$risk_full), f17(d$p5_full),
                     f17(d$risk_small), f17(d$p5_small))),
           file.path(dir, "gbsg2_valid.csv"))
