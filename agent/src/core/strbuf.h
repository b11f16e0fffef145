/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Formatting into a fixed buffer, piece by piece. */
#ifndef JT_STRBUF_H
#define JT_STRBUF_H

#include <stddef.h>

/*
 * jt_append - printf @fmt after the @at characters @buf (of @len bytes)
 * already holds.  Returns the length the text would have (snprintf's
 * rule): a result of @len or more means it was cut; @buf stays
 * NUL-terminated, and once cut further appends add nothing.  No locking.
 */
size_t jt_append(char *buf, size_t len, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
