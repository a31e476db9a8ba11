/*
** check_locale.c -- a host that calls setlocale(LC_ALL, <comma-decimal
** locale>) before using mleval, as a German or French desktop application
** would.  JSON and SVG numbers must still use '.' (SPEC: "Numbers are
** written the same in every C locale"): json_valid() of every JSON result is
** 1, "hi":0.5 is written as such, and plot coordinates contain no comma.
** SPDX-License-Identifier: MIT
**
** Exits 77 (automake's SKIP) with the reason when no comma-decimal locale
** can be set (bootstrap generates de_DE.UTF-8 with localedef).
*/
#include <sqlite3.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ml_core.h"

int sqlite3_mleval_init(sqlite3*, char**, const void*);

static int nFail = 0;
#define CHECK(cond, ...) do{ if( !(cond) ){ nFail++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
  printf(__VA_ARGS__); printf("\n"); } }while(0)

static char *query1(sqlite3 *db, const char *zSql){
  sqlite3_stmt *st = 0;
  char *z = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)!=SQLITE_OK ){
    printf("prepare failed: %s\n  %s\n", sqlite3_errmsg(db), zSql);
    exit(1);
  }
  if( sqlite3_step(st)==SQLITE_ROW && sqlite3_column_text(st, 0) ){
    z = strdup((const char*)sqlite3_column_text(st, 0));
  }else{
    printf("no row: %s\n  %s\n", sqlite3_errmsg(db), zSql);
    exit(1);
  }
  sqlite3_finalize(st);
  return z;
}

int main(void){
  static const char *aLoc[] = {"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "fr_FR.utf8",
                               "nl_NL.UTF-8", "ru_RU.UTF-8", 0};
  const char *zLoc = 0;
  sqlite3 *db;
  char buf[64], *z;
  int i;
  for(i=0; aLoc[i]; i++){
    if( setlocale(LC_ALL, aLoc[i]) && strcmp(localeconv()->decimal_point, ".")!=0 ){
      zLoc = aLoc[i];
      break;
    }
  }
  if( zLoc==0 ){
    printf("SKIP: no comma-decimal locale can be set (tried de_DE.UTF-8, fr_FR.UTF-8, ...); "
           "generate one: localedef -i de_DE -f UTF-8 de_DE.UTF-8\n");
    return 77;
  }
  snprintf(buf, sizeof(buf), "%.1f", 0.5);
  printf("locale %s: printf writes %s\n", zLoc, buf);
  CHECK(strcmp(buf, "0.5")!=0, "the locale %s does not change printf's decimal point", zLoc);

  /* The core: formatting and parsing. */
  ml_format_double(buf, 0.5);
  CHECK(strcmp(buf, "0.5")==0, "ml_format_double(0.5) = %s", buf);
  ml_format_double(buf, 0.1);
  CHECK(strcmp(buf, "0.1")==0, "ml_format_double(0.1) = %s", buf);
  ml_format_double(buf, 1.0/3.0);
  CHECK(ml_parse_double(buf, 0)==1.0/3.0, "1/3 does not round-trip: %s", buf);
  ml_format_double(buf, -2.5e-300);
  CHECK(strcmp(buf, "-2.5e-300")==0, "ml_format_double(-2.5e-300) = %s", buf);
  ml_format_fixed(buf, 12.345, 2);
  CHECK(strcmp(buf, "12.35")==0 || strcmp(buf, "12.34")==0, "ml_format_fixed(12.345, 2) = %s", buf);
  ml_format_fixed(buf, -0.001, 2);
  CHECK(strcmp(buf, "0.00")==0, "ml_format_fixed(-0.001, 2) = %s", buf);
  {
    const char *end;
    double d = ml_parse_double("0.25,", &end);
    CHECK(d==0.25 && *end==',', "ml_parse_double(\"0.25,\") = %g, rest '%s'", d, end);
  }

  /* SQL: every JSON result is valid JSON with '.' numbers. */
  sqlite3_auto_extension((void(*)(void))sqlite3_mleval_init);
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ) return 1;
  sqlite3_exec(db, "CREATE TABLE t(y INT, p REAL);"
                   "INSERT INTO t VALUES (0,0.1),(1,0.55),(0,0.45),(1,0.9),(1,0.75),(0,0.25);", 0, 0, 0);
  z = query1(db, "SELECT reliability(y, p, 2) FROM t");
  printf("reliability: %s\n", z);
  CHECK(strstr(z, "\"hi\":0.5")!=0, "reliability() does not write \"hi\":0.5: %s", z);
  free(z);
  z = query1(db, "SELECT json_valid(reliability(y, p, 2)) AND json_valid(pr_curve(y, p))"
                 " AND json_valid(roc_curve(y, p)) AND json_valid(confusion(y, p, 0.5)) FROM t");
  CHECK(strcmp(z, "1")==0, "a JSON result is not valid JSON in locale %s", zLoc);
  free(z);
  z = query1(db, "SELECT plot_curves('a', c) FROM (SELECT pr_curve(y, p) AS c FROM t)");
  {
    const char *ap = strstr(z, "(AP ");
    CHECK(ap && ap[5]=='.', "plot_curves() legend numbers follow the locale: %.60s", ap ? ap : "no (AP");
    CHECK(strstr(z, "height=\"480.00\"")!=0, "SVG attributes follow the locale: %.300s", z);
  }
  free(z);
  z = query1(db, "SELECT plot_reliability('a', r) FROM (SELECT reliability(y, p, 2) AS r FROM t)");
  {
    const char *ece = strstr(z, "(ECE ");
    CHECK(ece && ece[6]=='.', "plot_reliability() legend numbers follow the locale: %.60s", ece ? ece : "no (ECE");
  }
  free(z);
  sqlite3_close(db);
  printf("%s\n", nFail ? "FAILED" : "ok");
  return nFail ? 1 : 0;
}
