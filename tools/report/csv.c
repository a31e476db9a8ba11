/*
** csv.c -- the CSV importer of mleval-report: a CSV file with a header row
** into a table of a SQLite database, with numeric columns typed.  It never
** exits: every error is a return code and a message, so that the command
** line (input.c) and the fuzz target (tests/fuzz/fuzz_csv.c) share it.
** SPDX-License-Identifier: MIT
**
** int csv_import(db, zTable, f, zPath, &zErr): reads f to its end and
** creates main."zTable" in db.  SQLITE_OK, or an error code with *pzErr a
** message (sqlite3_free it) that names zPath and the record at fault.
**
** Rules:
**   1. RFC 4180 as spreadsheets write it: fields separated by ',', records
**      by a line end outside quotes -- LF, CRLF or a CR alone (old Mac
**      files: CR-only ends are records, not one header line) -- a field in
**      double quotes may hold ',', line ends and '""' (one quote).  A leading UTF-8 byte-order mark
**      (a spreadsheet's "CSV UTF-8") is skipped.
**   2. The first record is the header: the column names.  No header (an
**      empty file) is an error; a header alone is a table of 0 rows.  More
**      columns than SQLite's limit (SQLITE_LIMIT_COLUMN) is an error.
**   3. A blank line is skipped; any other record with a field count other
**      than the header's is an error naming the record (the header is
**      record 1) and both counts.
**   4. A NUL byte anywhere is an error (a binary file is not a CSV file:
**      the field would be cut there); so is a quoted field still open at the
**      end of the file.
**   5. Types: a column whose every non-empty field is an integer (decimal
**      digits with an optional sign, in range of strtoll) is INTEGER; else,
**      whose every non-empty field is a decimal number (digits with an
**      optional sign, '.' and exponent: 1.5, -.5, 2e-3) is REAL; else TEXT,
**      so 0x10, inf, nan or 1,5 make a column text, never 16.  An empty
**      field is NULL.  Numbers are read without a locale ('.' is the
**      decimal point).
**   6. Memory: sqlite3_malloc64 / sqlite3_realloc64 only; out of memory is
**      SQLITE_NOMEM with "out of memory", nothing leaked.
**
** Cost: the whole file is held in memory (its fields and a pointer each)
** until it is inserted, in one transaction through one prepared INSERT.
*/
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

typedef struct Csv {
  FILE *f;
  int nul;               /* a field held a NUL byte */
  int unclosed;          /* a quoted field ran to the end of the file */
  int nomem;             /* an allocation failed */
} Csv;

/* The file's records: the header, the rows, and each column's type. */
typedef struct CsvTable {
  char **azHead;         /* nCol names */
  int nCol;
  char ***aRec;          /* nRec records of nCol fields */
  int nRec, capRec;
  int *aKind;            /* per column: 1 integer, 2 real, 0 text */
} CsvTable;

/* Appends ch to the field *pz of *pn bytes (room *pcap); 0 when out of memory. */
static int field_put(char **pz, size_t *pn, size_t *pcap, int ch){
  if( *pn+2>*pcap ){
    char *z = sqlite3_realloc64(*pz, *pcap*2);
    if( z==0 ) return 0;
    *pz = z;
    *pcap *= 2;
  }
  (*pz)[(*pn)++] = (char)ch;
  return 1;
}

/* One field into *pz (sqlite3_malloc'd, NULL when out of memory); returns
** the character that ended it: ',', '\n' or EOF. */
static int csv_field(Csv *c, char **pz, int *pQuoted){
  size_t n = 0, cap = 64;
  char *z = sqlite3_malloc64(cap);
  int ch = fgetc(c->f), ok = z!=0;
  *pQuoted = 0;
  if( ch=='"' ){
    *pQuoted = 1;
    for(;;){
      ch = fgetc(c->f);
      if( ch==EOF ){ c->unclosed = 1; break; }
      if( ch==0 ) c->nul = 1;
      if( ch=='"' ){
        ch = fgetc(c->f);
        if( ch!='"' ) break;
      }
      if( ok ) ok = field_put(&z, &n, &cap, ch);
    }
  }
  while( ch!=',' && ch!='\n' && ch!=EOF ){
    if( ch=='\r' ){                /* CR or CRLF ends the record (rule 1) */
      int nx = fgetc(c->f);
      if( nx!='\n' && nx!=EOF ) ungetc(nx, c->f);
      ch = '\n';
      break;
    }
    if( ch==0 ) c->nul = 1;
    if( ok ) ok = field_put(&z, &n, &cap, ch);
    ch = fgetc(c->f);
  }
  if( ok ) z[n] = 0;
  else{ sqlite3_free(z); z = 0; c->nomem = 1; }
  *pz = z;
  return ch;
}

static void fields_free(char **az, int n){
  int i;
  if( az==0 ) return;
  for(i=0; i<n; i++) sqlite3_free(az[i]);
  sqlite3_free(az);
}

/* One record: its fields into *paz and whether each was quoted into
** *paQuoted (both sqlite3_malloc'd); returns the count, -1 at the end of the
** file (*paz and *paQuoted untouched), -2 when out of memory (nothing kept). */
static int csv_record(Csv *c, char ***paz, int **paQuoted){
  int n = 0, cap = 16, end;
  char **az;
  int *aq;
  int ch = fgetc(c->f);
  if( ch==EOF ) return -1;
  ungetc(ch, c->f);
  az = sqlite3_malloc64(sizeof(char*)*cap);
  aq = sqlite3_malloc64(sizeof(int)*cap);
  if( az==0 || aq==0 ){ sqlite3_free(az); sqlite3_free(aq); return -2; }
  do{
    if( n==cap ){
      char **az2 = sqlite3_realloc64(az, sizeof(char*)*cap*2);
      int *aq2 = az2 ? sqlite3_realloc64(aq, sizeof(int)*cap*2) : 0;
      if( az2 ) az = az2;
      if( aq2 ) aq = aq2;
      if( az2==0 || aq2==0 ){ fields_free(az, n); sqlite3_free(aq); return -2; }
      cap *= 2;
    }
    end = csv_field(c, &az[n], &aq[n]);
    if( az[n]==0 ){ fields_free(az, n); sqlite3_free(aq); return -2; }
    n++;
  }while( end==',' );
  *paz = az; *paQuoted = aq;
  return n;
}

/* 0: not a number, 1: an integer, 2: a real (rule 5).  A number is a
** decimal one: [+-] digits [. digits] [e|E [+-] digits], or .digits, with
** spaces around it; hexadecimal (0x10), inf, nan and the other forms
** strtod would also take are text. */
static int numeric_kind(const char *z){
  const char *p;
  char *end;
  int nDig = 0, real = 0;
  while( *z==' ' ) z++;
  p = z;
  if( *p=='+' || *p=='-' ) p++;
  while( *p>='0' && *p<='9' ){ p++; nDig++; }
  if( *p=='.' ){
    real = 1;
    p++;
    while( *p>='0' && *p<='9' ){ p++; nDig++; }
  }
  if( nDig==0 ) return 0;
  if( *p=='e' || *p=='E' ){
    const char *q = p + 1;
    if( *q=='+' || *q=='-' ) q++;
    if( !(*q>='0' && *q<='9') ) return 0;
    while( *q>='0' && *q<='9' ) q++;
    p = q;
    real = 1;
  }
  while( *p==' ' ) p++;
  if( *p ) return 0;
  if( !real ){
    errno = 0;
    (void)strtoll(z, &end, 10);
    if( errno==0 ) return 1;
  }
  return 2;
}

static void table_free(CsvTable *t){
  int k;
  fields_free(t->azHead, t->nCol);
  for(k=0; k<t->nRec; k++) fields_free(t->aRec[k], t->nCol);
  sqlite3_free(t->aRec);
  sqlite3_free(t->aKind);
  memset(t, 0, sizeof(*t));
}

/* The message of a bad record iRec (the header is 1), or 0 when it is fine. */
static char *record_error(Csv *c, const char *zPath, int iRec){
  if( c->nul ) return sqlite3_mprintf("%s: record %d holds a NUL byte (a CSV file is text)", zPath, iRec);
  if( c->unclosed ){
    return sqlite3_mprintf("%s: record %d: a quoted field is not closed before the end of the file", zPath, iRec);
  }
  return 0;
}

/* One data record into t (its fields' kinds folded into t->aKind);
** SQLITE_OK, or an error with *pzErr. */
static int table_add(CsvTable *t, char **az, int *aq, int n, const char *zPath, int iRec, char **pzErr){
  int i;
  if( n!=t->nCol ){
    *pzErr = sqlite3_mprintf("%s: record %d has %d field%s, the header has %d", zPath, iRec, n, n==1 ? "" : "s",
                             t->nCol);
    return SQLITE_ERROR;
  }
  for(i=0; i<t->nCol; i++){
    int k;
    if( az[i][0]==0 && !aq[i] ) continue;      /* empty: NULL */
    k = numeric_kind(az[i]);
    if( k==0 ) t->aKind[i] = 0;
    else if( k==2 && t->aKind[i]==1 ) t->aKind[i] = 2;
  }
  if( t->nRec==t->capRec ){
    int cap = t->capRec ? t->capRec*2 : 1024;
    char ***a = sqlite3_realloc64(t->aRec, sizeof(char**)*cap);
    if( a==0 ) return SQLITE_NOMEM;
    t->aRec = a;
    t->capRec = cap;
  }
  t->aRec[t->nRec++] = az;
  return SQLITE_OK;
}

/* The whole file into t: rules 1 to 5. */
static int csv_read(Csv *c, CsvTable *t, int nColMax, const char *zPath, char **pzErr){
  char **az;
  int *aq = 0, i, iRec = 1, n;
  unsigned char bom[3];
  if( fread(bom, 1, 3, c->f)!=3 || memcmp(bom, "\xef\xbb\xbf", 3)!=0 ) rewind(c->f);
  n = csv_record(c, &t->azHead, &aq);
  if( n==-2 ) return SQLITE_NOMEM;
  if( n<=0 ){ *pzErr = sqlite3_mprintf("%s: empty CSV file (a header row is needed)", zPath); return SQLITE_ERROR; }
  t->nCol = n;
  sqlite3_free(aq);
  if( (*pzErr = record_error(c, zPath, iRec))!=0 ) return SQLITE_ERROR;
  if( n>nColMax ){
    *pzErr = sqlite3_mprintf("%s: the header has %d columns, more than SQLite's limit of %d", zPath, n, nColMax);
    return SQLITE_ERROR;
  }
  t->aKind = sqlite3_malloc64(sizeof(int)*n);
  if( t->aKind==0 ) return SQLITE_NOMEM;
  for(i=0; i<n; i++) t->aKind[i] = 1;            /* integer until shown otherwise */
  for(;;){
    int rc;
    n = csv_record(c, &az, &aq);
    if( n==-1 ) break;
    if( n==-2 ) return SQLITE_NOMEM;
    iRec++;
    if( (*pzErr = record_error(c, zPath, iRec))!=0 ){ fields_free(az, n); sqlite3_free(aq); return SQLITE_ERROR; }
    if( n==1 && az[0][0]==0 && !aq[0] ){ fields_free(az, n); sqlite3_free(aq); continue; }  /* blank line */
    rc = table_add(t, az, aq, n, zPath, iRec, pzErr);
    sqlite3_free(aq);
    if( rc!=SQLITE_OK ){ fields_free(az, n); return rc; }
  }
  return SQLITE_OK;
}

/* The CREATE TABLE of t, or its INSERT statement (sqlite3_free it). */
static char *table_sql(sqlite3 *db, const char *zTable, CsvTable *t, int insert){
  sqlite3_str *sql = sqlite3_str_new(db);
  int i;
  if( insert ){
    sqlite3_str_appendf(sql, "INSERT INTO main.\"%w\" VALUES(", zTable);
    for(i=0; i<t->nCol; i++) sqlite3_str_appendall(sql, i ? ",?" : "?");
  }else{
    sqlite3_str_appendf(sql, "CREATE TABLE main.\"%w\"(", zTable);
    for(i=0; i<t->nCol; i++){
      sqlite3_str_appendf(sql, "%s\"%w\" %s", i ? ", " : "", t->azHead[i],
                          t->aKind[i]==1 ? "INTEGER" : t->aKind[i]==2 ? "REAL" : "TEXT");
    }
  }
  sqlite3_str_appendall(sql, ")");
  return sqlite3_str_finish(sql);
}

/* t into main."zTable" (created): one transaction, one prepared INSERT. */
static int table_store(sqlite3 *db, const char *zTable, CsvTable *t, char **pzErr){
  sqlite3_stmt *st = 0;
  char *z = table_sql(db, zTable, t, 0);
  int i, k, rc;
  if( z==0 ) return SQLITE_NOMEM;
  rc = sqlite3_exec(db, z, 0, 0, pzErr);
  sqlite3_free(z);
  if( rc!=SQLITE_OK ) return rc;
  z = table_sql(db, zTable, t, 1);
  if( z==0 ) return SQLITE_NOMEM;
  if( sqlite3_prepare_v2(db, z, -1, &st, 0)!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("%s\n  in: %s", sqlite3_errmsg(db), z);
    rc = SQLITE_ERROR;
  }
  sqlite3_free(z);
  if( rc==SQLITE_OK ) rc = sqlite3_exec(db, "BEGIN", 0, 0, pzErr);
  for(k=0; rc==SQLITE_OK && k<t->nRec; k++){
    for(i=0; i<t->nCol; i++){
      const char *f = t->aRec[k][i];
      if( f[0]==0 ) sqlite3_bind_null(st, i+1);
      else if( t->aKind[i]==1 ) sqlite3_bind_int64(st, i+1, strtoll(f, 0, 10));
      else if( t->aKind[i]==2 ) sqlite3_bind_double(st, i+1, strtod(f, 0));
      else sqlite3_bind_text(st, i+1, f, -1, SQLITE_TRANSIENT);
    }
    rc = sqlite3_step(st);
    if( rc==SQLITE_DONE ) rc = SQLITE_OK;
    else *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  if( rc==SQLITE_OK ) rc = sqlite3_exec(db, "COMMIT", 0, 0, pzErr);
  else if( !sqlite3_get_autocommit(db) ) sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
  return rc;
}

int csv_import(sqlite3 *db, const char *zTable, FILE *f, const char *zPath, char **pzErr){
  Csv c;
  CsvTable t;
  int rc;
  memset(&c, 0, sizeof(c));
  memset(&t, 0, sizeof(t));
  *pzErr = 0;
  c.f = f;
  rc = csv_read(&c, &t, sqlite3_limit(db, SQLITE_LIMIT_COLUMN, -1), zPath, pzErr);
  if( rc==SQLITE_OK ) rc = table_store(db, zTable, &t, pzErr);
  table_free(&t);
  if( rc!=SQLITE_OK && *pzErr==0 ){
    *pzErr = sqlite3_mprintf("%s", rc==SQLITE_NOMEM ? "out of memory" : sqlite3_errstr(rc));
  }
  return rc;
}
