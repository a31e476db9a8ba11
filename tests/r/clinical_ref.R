# SPDX-License-Identifier: MIT
# clinical_ref.R -- R's numbers for tests/test_clinical_r.py (issue 36).
#
# Usage: Rscript tests/r/clinical_ref.R DIR [quick]
#   reads  DIR/cal.csv  (set, y, p): calibration sets the Python test wrote
#          DIR/cov.csv  (set, y, s): binormal sets for the operating points
#          DIR/pts.csv  (set, y, s, spec): point estimates at specificities
#   writes DIR/r.json: for each calibration set rms::val.prob(p, y,
#          pl = FALSE)'s Eavg, E90, Emax, Intercept, Slope, E50 from the
#          same curve (lowess(p, y, iter = 0) + approx(ties = mean), as
#          val.prob computes Eavg), and glm(y ~ offset(qlogis(p))) and
#          glm(y ~ qlogis(p)) with confint.default at levels 0.9, 0.95,
#          0.99 (refitted from the estimate, so that the standard errors
#          are the information's at the estimate; the single fit's at 0.95
#          too); pROC's aSAH data (y = outcome is "Poor", p the fitted
#          probability of glm(y ~ s100b)) as calibration set "asah", its
#          rows included; for the coverage sets pROC's ci.se(specificities
#          = 0.8) and ci.sp(sensitivities = 0.8), boot.n = 2000, set.seed
#          per set (all sets, or with "quick" only the first 8); for pts.csv
#          coords(input = "specificity", ret = "sensitivity").
# Numbers are written with 17 significant digits (sprintf %.17g): JSON by
# hand, so nothing beyond r-base-core, r-cran-rms and r-cran-proc is needed.
# The golden file tests/golden/clinical_r.json is this output over the data
# the test writes; regenerate it with
#   MLEVAL_LIB=ext/.libs/mleval /usr/bin/python3 tests/test_clinical_r.py --update
suppressMessages({ library(rms); library(pROC) })

args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
quick <- length(args) > 1 && args[2] == "quick"

num <- function(x) ifelse(is.na(x), "null", sprintf("%.17g", x))
vec <- function(x) paste0("[", paste(num(x), collapse = ","), "]")
obj <- function(kv) paste0("{", paste(sprintf("\"%s\":%s", names(kv), unlist(kv)), collapse = ","), "}")

calib <- function(y, p) {
  v <- suppressWarnings(val.prob(p, y, pl = FALSE))
  sm <- approx(lowess(p, y, iter = 0), xout = p, ties = mean)$y
  er <- abs(sm - p)
  lp <- qlogis(p)
  ctl <- glm.control(epsilon = 1e-14, maxit = 100)
  # glm's standard errors come from the weights of its last iteration's
  # start, one step short of the estimate (~1e-7 relative at epsilon 1e-14):
  # refitting from the estimate puts them at it (one more iteration)
  g0 <- glm(y ~ 1 + offset(lp), family = binomial, control = ctl)
  g1 <- glm(y ~ lp, family = binomial, control = ctl)
  f0 <- glm(y ~ 1 + offset(lp), family = binomial, control = ctl, start = coef(g0))
  f1 <- glm(y ~ lp, family = binomial, control = ctl, start = coef(g1))
  out <- list(eavg = num(v[["Eavg"]]), e50 = num(unname(quantile(er, 0.5))),
              e90 = num(v[["E90"]]), emax = num(v[["Emax"]]),
              vp_intercept = num(v[["Intercept"]]), vp_slope = num(v[["Slope"]]),
              citl = num(coef(f0)[[1]]), intercept = num(coef(f1)[[1]]), slope = num(coef(f1)[[2]]))
  for (lv in c(0.9, 0.95, 0.99)) {
    c0 <- confint.default(f0, level = lv)
    c1 <- confint.default(f1, level = lv)
    out[[sprintf("ci_%g", lv)]] <- obj(list(citl = vec(c0[1, ]), intercept = vec(c1[1, ]), slope = vec(c1[2, ])))
  }
  # the single fit's, as a user would get them (level 0.95)
  c0 <- confint.default(g0); c1 <- confint.default(g1)
  out$ci_single_fit_0.95 <- obj(list(citl = vec(c0[1, ]), intercept = vec(c1[1, ]), slope = vec(c1[2, ])))
  obj(out)
}

res <- list()
# pROC's aSAH
data(aSAH)
ya <- as.integer(aSAH$outcome == "Poor")
pa <- unname(fitted(glm(ya ~ s100b, family = binomial, data = aSAH,
                        control = glm.control(epsilon = 1e-14, maxit = 100))))
res$asah <- obj(list(y = vec(ya), p = vec(pa), r = calib(ya, pa)))

cal <- read.csv(file.path(dir, "cal.csv"))
sets <- unique(cal$set)
res$cal <- obj(setNames(lapply(sets, function(k) { d <- cal[cal$set == k, ]; calib(d$y, d$p) }),
                        as.character(sets)))

cov <- read.csv(file.path(dir, "cov.csv"))
csets <- unique(cov$set)
if (quick) csets <- head(csets, 8)
res$cov <- obj(setNames(lapply(csets, function(k) {
  d <- cov[cov$set == k, ]
  r <- roc(d$y, d$s, levels = c(0, 1), direction = "<", quiet = TRUE)
  set.seed(1000 + k)
  se <- ci.se(r, specificities = 0.8, boot.n = 2000, conf.level = 0.95, progress = "none")
  set.seed(2000 + k)
  sp <- ci.sp(r, sensitivities = 0.8, boot.n = 2000, conf.level = 0.95, progress = "none")
  obj(list(se = vec(se[1, ]), sp = vec(sp[1, ]),
           se_hat = num(coords(r, x = 0.8, input = "specificity", ret = "sensitivity")[[1]]),
           sp_hat = num(coords(r, x = 0.8, input = "sensitivity", ret = "specificity")[[1]])))
}), as.character(csets)))

pts <- read.csv(file.path(dir, "pts.csv"))
psets <- unique(pts$set)
res$pts <- obj(setNames(lapply(psets, function(k) {
  d <- pts[pts$set == k, ]
  r <- roc(d$y, d$s, levels = c(0, 1), direction = "<", quiet = TRUE)
  sp <- sort(unique(d$spec))
  obj(list(spec = vec(sp), sens = vec(sapply(sp, function(x)
    coords(r, x = x, input = "specificity", ret = "sensitivity")[[1]][1]))))
}), as.character(psets)))

res$versions <- obj(list(R = sprintf("\"%s\"", R.version.string),
                         rms = sprintf("\"%s\"", packageVersion("rms")),
                         pROC = sprintf("\"%s\"", packageVersion("pROC"))))
writeLines(obj(res), file.path(dir, "r.json"))
