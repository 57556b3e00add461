/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policies, in the order they are listed.  Adding a policy is one new
 * file in this directory and one line here.  No include guard: expanded
 * with different definitions of WP_POLICY().
 */
WP_POLICY(stock)
WP_POLICY(mirror)
WP_POLICY(noscan)
WP_POLICY(bounded)
WP_POLICY(util)
WP_POLICY(idlemask)
WP_POLICY(idlecore)
WP_POLICY(prevsmt)
WP_POLICY(cachehot)
WP_POLICY(shortwake)
WP_POLICY(prevfirst)
WP_POLICY(scxdfl)
WP_POLICY(eager)
