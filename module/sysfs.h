/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WP_SYSFS_H
#define WP_SYSFS_H

int wp_sysfs_init(void);
void wp_sysfs_exit(void);

#endif /* WP_SYSFS_H */
