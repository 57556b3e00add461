/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WP_SHIM_STRING_H
#define WP_SHIM_STRING_H

#include <string.h>

#endif
