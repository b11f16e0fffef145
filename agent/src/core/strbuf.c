// SPDX-License-Identifier: GPL-2.0-or-later
/* Formatting into a fixed buffer, piece by piece (strbuf.h). */
#include <stdarg.h>
#include <stdio.h>

#include "strbuf.h"

size_t jt_append(char *buf, size_t len, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (at >= len)
		return at;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
	return n < 0 ? at : at + (size_t)n;
}
