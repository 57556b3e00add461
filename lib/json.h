/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer shared by wakeplacectl (ctl/) and the
 * benchmark tools (bench-scripts/): values go straight to a FILE, commas,
 * key separators and indentation are the writer's business.
 */
#ifndef WP_JSON_H
#define WP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH	64

/* How the members of one object or array are laid out. */
enum json_style {
	JSON_COMPACT,	/* {"a":1,"b":2} */
	JSON_LINES,	/* one member a line, two spaces a level, "a": 1 */
	JSON_SPACED,	/* {"a": 1, "b": 2} on one line */
};

/* Choices of the two users' established output (a bit mask). */
enum {
	JSON_ESC_ASCII	= 1,	/* bytes >= 0x7f as \u00XX: pure ASCII out */
	JSON_ESC_SHORT	= 2,	/* newline and tab as \n and \t */
	JSON_EMPTY_BREAK = 4,	/* JSON_LINES: empty "[", newline, "]" too */
};

struct json {
	FILE *f;		/* NULL: every call does nothing */
	unsigned int flags;	/* JSON_ESC_*, JSON_EMPTY_BREAK */
	enum json_style style;	/* of the outermost container */
	int depth;
	bool first[JSON_DEPTH];
	char close[JSON_DEPTH];
	enum json_style lay[JSON_DEPTH];
};

void json_init(struct json *j, FILE *f, enum json_style style,
	       unsigned int flags);
void json_obj(struct json *j, const char *key);
void json_arr(struct json *j, const char *key);
void json_obj_styled(struct json *j, const char *key, enum json_style style);
void json_end(struct json *j);
void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, long long v);
void json_fixed(struct json *j, const char *key, double v, int prec);
void json_gnum(struct json *j, const char *key, double v, int digits);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);

#endif /* WP_JSON_H */
