/**
 * Not API (the module does not export it): io_uring's rings and provided buffers, driven by address,
 * and the loop's poller and endpoints over them.
 */
package dev.wirespeed.linux.internal.uring;
