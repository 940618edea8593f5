/**
 * Not API (the module does not export it): the system-call layer, the C library's functions linked
 * through FFM with {@code errno} captured, and the values the kernel's headers define.
 */
package dev.wirespeed.linux.internal.sys;
