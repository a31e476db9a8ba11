# SPDX-License-Identifier: MIT
# conc_check.R -- ml_concordance (ext/core/ml_conc.c) against R survival's
# concordance() on random tied data (a development check, not part of make
# check; tests/check_conc.c holds fixed cases from it).
#
# Usage: Rscript tests/r/conc_check.R DRIVER [NSETS [SEED]]
#   DRIVER  the binary of tests/r/conc_driver.c
# Each set: 1 to 250 rows, times on a coarse grid (heavy ties, censorings tied
# with events; survival's aeqSurv changes nothing on it), risks tied or not,
# no weights / integer / real weights, tau = Inf, an event time, a time
# between, or before every time.  Compared: counts, estimate, var, dfbeta
# (R's weighted dfbeta is w D; R's weighted var is sum (w D)^2, ours sum w
# D^2, which is R's var over the repeated rows: checked on integer weights).
suppressMessages(library(survival))
args <- commandArgs(trailingOnly = TRUE)
driver <- args[1]
nsets <- if (length(args) > 1) as.integer(args[2]) else 300
set.seed(if (length(args) > 2) as.integer(args[3]) else 1)
dir <- tempfile("conc"); dir.create(dir)

data <- list(); sets <- list()
for (ds in 1:nsets) {
  n <- sample(c(1:8, 10, 15, 20, 30, 45, 60, 120, 250), 1)
  tgrid <- sample(c(2, 4, 8, 50), 1)
  time <- sample(tgrid, n, replace = TRUE) / 2
  event <- rbinom(n, 1, runif(1, 0.2, 0.9))
  risk <- if (runif(1) < 0.5) sample(sample(2:10, 1), n, replace = TRUE) else round(rnorm(n), 3)
  wkind <- sample(0:2, 1)
  w <- switch(wkind + 1, rep(1, n), sample(1:4, n, replace = TRUE), round(runif(n, 0.2, 3), 2))
  et <- time[event == 1]
  tau <- switch(sample(1:4, 1), Inf, if (length(et)) sample(et, 1) else Inf,
                if (length(et)) sample(et, 1) + 0.25 else Inf, min(time) - 0.5)
  data[[ds]] <- data.frame(ds = ds, time = time, event = event, risk = risk, w = w)
  sets[[ds]] <- data.frame(ds = ds, tau = tau, weighted = as.integer(wkind > 0), wkind = wkind)
}
D <- do.call(rbind, data); S <- do.call(rbind, sets)
write.csv(D, file.path(dir, "data.csv"), row.names = FALSE, quote = FALSE)
write.csv(S[, 1:3], file.path(dir, "sets.csv"), row.names = FALSE, quote = FALSE)
rc <- system2(driver, file.path(dir, c("data.csv", "sets.csv", "out.csv", "dfbeta.csv")))
stopifnot(rc == 0)
O <- read.csv(file.path(dir, "out.csv")); B <- read.csv(file.path(dir, "dfbeta.csv"))

rel <- function(a, b) { d <- abs(a - b); ifelse(d == 0, 0, d / pmax(abs(a), abs(b), 1e-300)) }
relv <- function(a, b) abs(a - b) / max(abs(a), abs(b), 1e-12)   # var: 0 vs 1e-33 is rounding
worst <- c(counts = 0, estimate = 0, var = 0, dfbeta = 0, var_repeated = 0)
ncmp <- c(harrell = 0, uno = 0, repeated = 0)
nexact <- c(estimate = 0, var = 0, dfbeta_sets = 0)
fails <- 0
nunit <- 0   # unit-weight Harrell sets with a comparable pair
for (ds in 1:nsets) {
  d <- data[[ds]]; s <- sets[[ds]]
  for (m in c("harrell", "uno")) {
    args <- list(Surv(d$time, d$event) ~ d$risk, reverse = TRUE, influence = 1)
    if (is.finite(s$tau)) args$ymax <- s$tau
    if (m == "uno") args$timewt <- "n/G2"
    if (s$weighted) args$weights <- d$w
    f <- tryCatch(do.call(concordance, args), error = function(e) NULL)
    if (is.null(f)) next
    o <- O[O$ds == ds & O$method == m, ]
    b <- B[B$ds == ds & B$method == m, "dfbeta"]
    ours <- c(o$concordant, o$discordant, o$tied_risk, o$tied_time, o$tied_both)
    theirs <- unname(f$count[c("concordant", "discordant", "tied.x", "tied.y", "tied.xy")])
    ncmp[m] <- ncmp[m] + 1
    e <- c(counts = max(rel(ours, theirs)),
           estimate = if (is.nan(f$concordance)) (if (is.nan(o$estimate)) 0 else Inf) else abs(o$estimate - f$concordance),
           var = if (is.nan(f$var)) (if (is.nan(o$var)) 0 else Inf) else relv(o$var, sum(f$dfbeta^2 / d$w)),
           dfbeta = if (all(is.nan(f$dfbeta))) (if (all(is.nan(b))) 0 else Inf) else max(abs(b * d$w - f$dfbeta)))
    if (!is.nan(f$concordance) && o$estimate == f$concordance) nexact["estimate"] <- nexact["estimate"] + 1
    if (!s$weighted && m == "harrell" && !is.nan(f$var)) {
      nunit <- nunit + 1
      if (o$var == f$var) nexact["var"] <- nexact["var"] + 1
      if (all(b == f$dfbeta)) nexact["dfbeta_sets"] <- nexact["dfbeta_sets"] + 1
    }
    if (any(!is.finite(e)) || e["counts"] > 1e-13 || e["estimate"] > 1e-14 || e["var"] > 1e-12 || e["dfbeta"] > 1e-14) {
      fails <- fails + 1
      cat("set", ds, m, "n", nrow(d), "tau", s$tau, "weights", s$wkind, ":", format(e), "\n")
    }
    worst[names(e)] <- pmax(worst[names(e)], ifelse(is.finite(e), e, 1))
    # the frequency rule: integer weights are repeated rows
    if (s$wkind == 1 && !is.nan(o$var)) {
      r <- d[rep(seq_len(nrow(d)), d$w), ]
      args$weights <- NULL
      args[[1]] <- Surv(r$time, r$event) ~ r$risk
      fr <- do.call(concordance, args)
      ncmp["repeated"] <- ncmp["repeated"] + 1
      worst["var_repeated"] <- max(worst["var_repeated"], relv(o$var, fr$var))
    }
  }
}
cat("compared:", paste(names(ncmp), ncmp, collapse = ", "), "\n")
cat("max differences (counts, var: relative; estimate, dfbeta: absolute):\n")
print(worst)
cat("bit-equal to R: estimate", nexact["estimate"], "of", sum(ncmp[1:2]), "estimates;",
    "unit-weight Harrell var", nexact["var"], "and every dfbeta", nexact["dfbeta_sets"], "of", nunit, "sets\n")
cat("failures:", fails, "\n")
quit(status = if (fails) 1 else 0)
