// SPDX-License-Identifier: GPL-2.0
/*
 * wakeplacectl: the JSON document of a command (-j).  It is built in memory
 * with the shared writer (lib/json.c) and printed by json_finish(), so that
 * stdout always carries exactly one document, the result or the error.
 */
#include <stdlib.h>

#include "wakeplacectl.h"
#include "json.h"

static struct json doc;		/* doc.f NULL: no document being built */
static char *jbuf;
static size_t jlen;

/* The tool's JSON: pure ASCII, compact unless --pretty. */
static void doc_open(void)
{
	json_init(&doc, open_memstream(&jbuf, &jlen),
		  g.pretty ? JSON_LINES : JSON_COMPACT,
		  JSON_ESC_ASCII | JSON_ESC_SHORT);
}

void j_obj(const char *key)
{
	json_obj(&doc, key);
}

void j_arr(const char *key)
{
	json_arr(&doc, key);
}

void j_end(void)
{
	json_end(&doc);
}

void j_str(const char *key, const char *val)
{
	json_str(&doc, key, val);
}

void j_u64(const char *key, uint64_t v)
{
	json_u64(&doc, key, v);
}

void j_i64(const char *key, long long v)
{
	json_i64(&doc, key, v);
}

/* A number with prec decimals; NaN or infinity become null. */
void j_num(const char *key, double v, int prec)
{
	json_fixed(&doc, key, v, prec);
}

void j_bool(const char *key, bool v)
{
	json_bool(&doc, key, v);
}

void j_null(const char *key)
{
	json_null(&doc, key);
}

void j_timestamp(void)
{
	j_num("timestamp", now_mono(), 6);
}

void json_start(void)
{
	doc_open();
	if (!doc.f) {
		perror("wakeplacectl: open_memstream");
		exit(EX_FAIL);
	}
	j_obj(NULL);
	j_timestamp();
}

void json_finish(int rc)
{
	if (!doc.f && !(g.json && rc))
		return;
	if (doc.f) {
		while (doc.depth)
			j_end();
		fclose(doc.f);
		doc.f = NULL;
	}
	if (rc == EX_OK && g.helped) {
		;
	} else if (rc == EX_OK || (g.json_keep && jbuf)) {
		fwrite(jbuf, 1, jlen, stdout);
		fputc('\n', stdout);
	} else {
		free(jbuf);
		doc_open();
		if (!doc.f)
			exit(rc);
		j_obj(NULL);
		j_str("error", error_message()[0] ? error_message() : "failed");
		j_end();
		fclose(doc.f);
		doc.f = NULL;
		fwrite(jbuf, 1, jlen, stdout);
		fputc('\n', stdout);
	}
	free(jbuf);
	jbuf = NULL;
	fflush(stdout);
}
