// SPDX-License-Identifier: GPL-2.0
/*
 * A small streaming JSON writer (see json.h).  Containers nest up to
 * JSON_DEPTH - 1 levels; deeper ones are a caller bug and are not checked
 * beyond keeping the writer's arrays in bounds.
 */
#include <math.h>
#include <stdarg.h>

#include "json.h"

void json_init(struct json *j, FILE *f, enum json_style style,
	       unsigned int flags)
{
	j->f = f;
	j->flags = flags;
	j->style = style;
	j->depth = 0;
	j->first[0] = true;
	j->lay[0] = style;
}

static void json_escape(struct json *j, const char *s)
{
	FILE *f = j->f;

	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n' && (j->flags & JSON_ESC_SHORT))
			fputs("\\n", f);
		else if (c == '\t' && (j->flags & JSON_ESC_SHORT))
			fputs("\\t", f);
		else if (c < 0x20 || (c >= 0x7f && (j->flags & JSON_ESC_ASCII)))
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A new line indented to the current depth, in JSON_LINES containers. */
static void json_newline(struct json *j)
{
	int i;

	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator, layout and key before a member of the current container. */
static void json_prefix(struct json *j, const char *key)
{
	enum json_style lay = j->lay[j->depth];

	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputs(lay == JSON_SPACED ? ", " : ",", j->f);
		j->first[j->depth] = false;
		if (lay == JSON_LINES)
			json_newline(j);
	}
	if (key) {
		json_escape(j, key);
		fputs(lay == JSON_COMPACT ? ":" : ": ", j->f);
	}
}

static void json_open(struct json *j, const char *key, char open, char close,
		      enum json_style style)
{
	if (!j->f || j->depth >= JSON_DEPTH - 1)
		return;
	json_prefix(j, key);
	fputc(open, j->f);
	j->depth++;
	j->first[j->depth] = true;
	j->close[j->depth] = close;
	j->lay[j->depth] = style;
}

/* An object laid out like its parent (the outermost: like the writer). */
void json_obj(struct json *j, const char *key)
{
	json_open(j, key, '{', '}', j->lay[j->depth]);
}

void json_arr(struct json *j, const char *key)
{
	json_open(j, key, '[', ']', j->lay[j->depth]);
}

/* An object with a layout of its own, e.g. one line in a JSON_LINES list. */
void json_obj_styled(struct json *j, const char *key, enum json_style style)
{
	json_open(j, key, '{', '}', style);
}

void json_end(struct json *j)
{
	bool empty;

	if (!j->f || !j->depth)
		return;
	empty = j->first[j->depth] && !(j->flags & JSON_EMPTY_BREAK);
	j->depth--;
	if (j->lay[j->depth + 1] == JSON_LINES && !empty)
		json_newline(j);
	fputc(j->close[j->depth + 1], j->f);
}

/* A string, or null for NULL. */
void json_str(struct json *j, const char *key, const char *val)
{
	if (!j->f)
		return;
	json_prefix(j, key);
	if (val)
		json_escape(j, val);
	else
		fputs("null", j->f);
}

/* A scalar member written by printf; every number and literal goes here. */
static void __attribute__((format(printf, 3, 4)))
json_fmt(struct json *j, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (!j->f)
		return;
	json_prefix(j, key);
	va_start(ap, fmt);
	vfprintf(j->f, fmt, ap);
	va_end(ap);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	json_fmt(j, key, "%llu", (unsigned long long)v);
}

void json_i64(struct json *j, const char *key, long long v)
{
	json_fmt(j, key, "%lld", v);
}

/*
 * A number with prec decimals; null when not finite, and beyond 1e300,
 * where %f would spell out some three hundred digits.
 */
void json_fixed(struct json *j, const char *key, double v, int prec)
{
	if (v != v || v > 1e300 || v < -1e300)
		json_fmt(j, key, "null");
	else
		json_fmt(j, key, "%.*f", prec, v);
}

/* A number with digits significant digits (%g); null when not finite. */
void json_gnum(struct json *j, const char *key, double v, int digits)
{
	if (isfinite(v))
		json_fmt(j, key, "%.*g", digits, v);
	else
		json_fmt(j, key, "null");
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_fmt(j, key, "%s", v ? "true" : "false");
}

void json_null(struct json *j, const char *key)
{
	json_fmt(j, key, "null");
}
