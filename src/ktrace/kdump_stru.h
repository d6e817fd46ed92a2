// SPDX-License-Identifier: GPL-2.0-only
/* kdump_stru — the structures of STRU records decoded (kdump_stru.c), in
 * FreeBSD kdump's STRU-line style or inline in strace's. Prefix kd_stru_. */
#ifndef SONDE_KTRACE_KDUMP_STRU_H
#define SONDE_KTRACE_KDUMP_STRU_H

#include "format.h"
#include "xlat.h"

#include <stdbool.h>

enum kd_stru_style {
	KD_STRU_BSD,		/* struct sockaddr { AF_INET, 127.0.0.1:80 } */
	KD_STRU_STRACE,		/* {sa_family=AF_INET, sin_port=htons(80), ...} */
};

/* Append the structure; false (nothing appended) when its kind has no
 * decoder for this ABI, or its bytes are too few: print them in hex. */
bool kd_stru_put(struct sbuf *sb, enum sc_abi abi, const struct ktr_stru *st,
		 enum kd_stru_style style);

/* A socket address as -y names a socket's ends: "127.0.0.1:8080",
 * "[::1]:8080", "/tmp/sock", "@abstract"; false when not one of these. */
bool kd_stru_sockaddr_name(struct sbuf *sb, const struct ktr_stru *st);

#endif
